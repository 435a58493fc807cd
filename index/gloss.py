"""English words for the Korean words of a request, for the lexical channel only.

A catalog written in English shares no token with a request written in Korean: BM25, the
known-word share and word coverage read nothing of "스퀘어 고객 삭제해 줘", and the request
rests on the cross-lingual bridge's cosines alone. :func:`gloss_tokens` gives such a request
the English tokens of the Korean words it contains, from a short glossary of the verbs and
nouns people use when they ask an agent to act on an API (files, folders, messages,
customers, orders; create, delete, send, list). Nothing else is translated: names,
transliterated brands and domain terms stay Korean. The glossary is general vocabulary
written once, not drawn from any benchmark.

:func:`schemarouter.index.tokenize.request_tokens` adds them to a request's tokens (the
:class:`~schemarouter.index.tokenize.QueryText` every lexical reader shares); documents are
never glossed, so an index built before reads them the same.

A Hangul run matches a glossary word it contains ("파일을" holds "파일"); the longest words
are tried first and a shorter one inside a matched span is not counted again.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["KOREAN_GLOSSARY", "gloss_tokens"]

#: Korean word (as it appears before particles and endings) -> English words.
KOREAN_GLOSSARY: dict[str, str] = {
    # what to do
    "만들": "create",
    "생성": "create",
    "추가": "add",
    "등록": "register create",
    "삭제": "delete",
    "지워": "delete",
    "지우": "delete",
    "제거": "remove",
    "수정": "update",
    "변경": "change update",
    "바꿔": "change",
    "바꾸": "change",
    "업데이트": "update",
    "보내": "send",
    "전송": "send",
    "발송": "send",
    "올려": "upload",
    "업로드": "upload",
    "다운로드": "download",
    "내려받": "download",
    "복사": "copy",
    "이동": "move",
    "옮겨": "move",
    "취소": "cancel",
    "확정": "confirm",
    "예약": "book reservation booking appointment",
    "승인": "approve",
    "거절": "reject",
    "초대": "invite",
    "구독": "subscribe subscription",
    "공유": "share",
    "저장": "save",
    "작성": "write",
    "검색": "search",
    "찾아": "find search",
    "조회": "get",
    "목록": "list",
    "리스트": "list",
    "보여": "show",
    "알려": "get",
    "확인": "check",
    "실행": "run execute",
    "시작": "start",
    "중지": "stop",
    "설치": "install",
    "배포": "deploy",
    "병합": "merge",
    "커밋": "commit",
    "푸시": "push",
    "결제": "pay payment",
    "주문": "order",
    "가입": "join",
    "로그인": "login",
    # what to act on
    "파일": "file",
    "폴더": "folder",
    "디렉터리": "directory",
    "디렉토리": "directory",
    "문서": "document",
    "노트": "note",
    "메모": "note memo",
    "메시지": "message",
    "문자": "sms text message",
    "이메일": "email",
    "메일": "mail email",
    "전화": "call phone",
    "연락처": "contact",
    "고객": "customer",
    "환자": "patient",
    "의사": "doctor",
    "사용자": "user",
    "회원": "member",
    "계정": "account",
    "그룹": "group",
    "팀": "team",
    "채널": "channel",
    "댓글": "comment",
    "게시물": "post",
    "게시글": "post",
    "이슈": "issue",
    "저장소": "repository repo",
    "브랜치": "branch",
    "태그": "tag",
    "버전": "version",
    "프로젝트": "project",
    "작업": "task job",
    "일정": "event schedule calendar",
    "캘린더": "calendar",
    "알림": "notification alert",
    "주소": "address",
    "위치": "location",
    "지도": "map",
    "날씨": "weather",
    "기온": "temperature",
    "가격": "price",
    "주식": "stock",
    "환율": "exchange rate currency",
    "뉴스": "news",
    "이미지": "image",
    "사진": "photo image",
    "동영상": "video",
    "영상": "video",
    "음악": "music",
    "노래": "song track",
    "재생목록": "playlist",
    "플레이리스트": "playlist",
    "영화": "movie film",
    "상품": "product item",
    "제품": "product",
    "재고": "inventory stock",
    "창고": "warehouse",
    "품목": "item",
    "장바구니": "cart",
    "청구서": "invoice",
    "인보이스": "invoice",
    "미결제": "unpaid",
    "송장": "invoice",
    "결제수단": "payment method",
    "환불": "refund",
    "배송": "shipping delivery",
    "항목": "item",
    "아이템": "item",
    "속성": "attribute property",
    "테이블": "table",
    "데이터베이스": "database",
    "시트": "sheet",
    "스프레드시트": "spreadsheet",
    "버킷": "bucket",
    "객체": "object",
    "큐": "queue",
    "토픽": "topic",
    "함수": "function",
    "컨테이너": "container",
    "설정": "settings config",
    "비밀번호": "password",
    "권한": "permission",
    "링크": "link",
    "페이지": "page",
    "웹": "web",
    "검색어": "query",
    "번역": "translate translation",
    "요약": "summary summarize",
    "보고서": "report",
    "슬라이드": "slide",
    "프레젠테이션": "presentation",
    "차트": "chart",
    "그래프": "graph",
    "항공편": "flight",
    "비행기": "flight",
    "호텔": "hotel",
    "식당": "restaurant",
    "레스토랑": "restaurant",
    # when, and the things people check on
    "몇 시": "time",
    "시간": "time hour",
    "시각": "time",
    "현재": "current",
    "지금": "current now",
    "오늘": "today",
    "내일": "tomorrow",
    "주가": "stock price quote",
    "시세": "price quote",
    "코인": "coin crypto",
    "암호화폐": "cryptocurrency crypto",
    "기사": "article",
    "도메인": "domain",
    "인증서": "certificate",
    "서버": "server",
    "인스턴스": "instance",
    "클러스터": "cluster",
    "서비스": "service",
    "로그": "log logs",
    "쿼리": "query",
    "통계": "statistics stats",
    "조회수": "views",
    "순위": "ranking rank",
    "리뷰": "review",
    "평점": "rating",
    # support desks, shops, offices
    "티켓": "ticket",
    "문의": "inquiry question",
    "영수증": "receipt",
    "쿠폰": "coupon",
    "할인": "discount",
    "구매": "purchase buy",
    "거래": "transaction",
    "계좌": "bank account",
    "송금": "transfer",
    "계약": "contract",
    "회의실": "meeting room",
    "회의": "meeting",
    "좌석": "seat",
    "객실": "room",
    "직원": "employee",
    "부서": "department",
    "휴가": "vacation leave",
    "도서": "book",
    "도서관": "library",
    "대출": "loan borrow",
    "반납": "return",
    "첨부": "attachment",
    "초안": "draft",
    "답장": "reply",
    "라벨": "label",
    "마일스톤": "milestone",
    "스프린트": "sprint",
    # cloud and developer vocabulary (words, and loanwords written in Hangul)
    "워크스페이스": "workspace",
    "타깃": "target",
    "타겟": "target",
    "규칙": "rule",
    "파이프라인": "pipeline",
    "정책": "policy",
    "마감": "deadline",
    "기한": "deadline expiration",
    "만료": "expiration expire",
    "연장": "extend",
    "갱신": "renew refresh",
    "새로고침": "refresh",
    "역할": "role",
    "이벤트": "event",
    "스택": "stack",
    "네트워크": "network",
    "보안": "security",
    "스냅샷": "snapshot",
    "백업": "backup",
    "볼륨": "volume",
    "디스크": "disk",
    "알람": "alarm",
    "대시보드": "dashboard",
    "케이스": "case",
    "스테이지": "stage",
    "캐시": "cache",
    "트리거": "trigger",
    "웹훅": "webhook",
    "엔드포인트": "endpoint",
    "요청": "request",
    "플래그": "flag",
    "환경": "environment",
    "리전": "region",
    "템플릿": "template",
    "인증": "auth authentication",
    "토큰": "token",
    "세션": "session",
    "프로세스": "process",
    "명령": "command",
    "스크립트": "script",
    "빌드": "build",
    "재부팅": "reboot restart",
    "재시작": "restart",
    "종료": "terminate stop",
    "중단": "stop",
    "활성화": "enable activate",
    "비활성화": "disable deactivate",
    "연결": "connect connection",
    "할당": "assign",
    "해제": "release detach",
    "차단": "block",
    "작업자": "worker",
    "사용량": "usage",
    "요금": "billing cost",
    "비용": "cost",
    "레코드": "record",
    "시스템": "system",
    "모델": "model",
    "기기": "device",
    "센서": "sensor",
    "시료": "sample",
    "샘플": "sample",
    "장치": "device",
    "사물": "thing",
    "코드": "code",
    # data platforms and their operations (general words, and loanwords written in Hangul)
    "실행 중": "running",
    "진행 중": "running in progress",
    "배치": "batch",
    "대기열": "queue",
    "예산": "budget",
    "크롤러": "crawler",
    "구독자": "subscriber",
    "파라미터": "parameter",
    "매개변수": "parameter",
    "스키마": "schema",
    "파티션": "partition",
    "복원": "restore",
    "노드": "node",
    "복제": "replica replication copy",
    "정의": "definition",
    "데이터": "data",
    "상태": "status state",
    "지표": "metrics",
    "메트릭": "metrics",
    "구성": "configuration",
    "엔진": "engine",
    "스트림": "stream",
    "서브넷": "subnet",
    "암호화": "encryption encrypt",
    "용량": "capacity",
    # speech and text (trial z1)
    "텍스트": "text",
    "음성": "speech voice audio",
    "변환": "convert conversion",
    "합성": "synthesize synthesis",
    "자격 증명": "credential credentials",
}

_HANGUL = re.compile(r"[\uac00-\ud7a3]+")
#: A glossary word of several words ("몇 시", what time) is matched as one Hangul run: the
#: request's spaces between them are taken out first.
_SPACED = [
    (re.compile(r"\s+".join(map(re.escape, key.split()))), key.replace(" ", ""))
    for key in KOREAN_GLOSSARY
    if " " in key
]
_ENGLISH = {key.replace(" ", ""): english for key, english in KOREAN_GLOSSARY.items()}
_BY_LENGTH = sorted(_ENGLISH, key=len, reverse=True)


@lru_cache(maxsize=8192)
def _run_gloss(run: str) -> tuple[str, ...]:
    taken = [False] * len(run)
    words: list[tuple[int, str]] = []
    for key in _BY_LENGTH:
        start = run.find(key)
        while start >= 0:
            span = range(start, start + len(key))
            if not any(taken[i] for i in span):
                for i in span:
                    taken[i] = True
                words.append((start, _ENGLISH[key]))
            start = run.find(key, start + 1)
    return tuple(w for _, english in sorted(words) for w in english.split())


# a quoted span is a name or a value the request supplies ("'VIP 고객'이라는 리스트" names a
# list, it asks nothing of customers): its words are not glossed. An apostrophe after a Latin
# letter ("let's", "it's") opens no quote.
_QUOTED = re.compile(
    r"(?<![A-Za-z])'[^']*'|\"[^\"]*\"|\u2018[^\u2019]*\u2019|\u201c[^\u201d]*\u201d"
    r"|\u300c[^\u300d]*\u300d"
)


def gloss_tokens(text: str) -> list[str]:
    """The English words of the Korean words ``text`` contains outside quotes, in text order
    (raw words: the caller tokenizes them with its own settings); ``[]`` for text without
    Hangul."""
    if not _HANGUL.search(text):
        return []
    text = _QUOTED.sub(" ", text)
    for spaced, joined in _SPACED:
        text = spaced.sub(joined, text)
    return [w for run in _HANGUL.findall(text) for w in _run_gloss(run)]
