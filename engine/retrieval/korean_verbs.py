"""The Korean verb stems that ask for a change, by the English change each names: the table
:mod:`schemarouter.retrieval.actions` reads requests by, and :func:`korean_verb_word`, the verb
sense of a Korean word that is a noun too ("예약": a booking, and "to book")."""

from __future__ import annotations

__all__ = ["KO_VERB", "korean_verb_word"]

#: Korean verb stems (as they appear before 줘 / 해 / 하고 ...) that ask to write, by the change
#: they name (:func:`~schemarouter.retrieval.actions.request_verbs`).
KO_VERB = {
    "만들": "create", "만들어": "create", "생성": "create", "추가": "create", "등록": "create",
    "보내": "send", "전송": "send", "발송": "send",
    "수정": "update", "변경": "update", "바꿔": "update", "바꾸": "update", "업데이트": "update",
    "설정": "update",
    "삭제": "delete", "지워": "delete", "지우": "delete", "제거": "delete", "빼": "delete",
    "연장": "update", "갱신": "update", "돌려": "start",
    "취소": "cancel", "예약": "book", "올려": "upload", "업로드": "upload", "게시": "publish",
    "작성": "write", "써": "write", "적어": "write", "저장": "save", "초대": "invite",
    "구독": "subscribe", "결제": "pay", "주문": "order", "보관": "archive", "승인": "approve",
    "거절": "reject", "이동": "move", "옮겨": "move", "복사": "copy", "넣어": "add",
    "담아": "add", "추방": "kick", "가입": "join", "설치": "install", "배포": "deploy",
    "실행": "start", "중지": "stop", "시작": "start", "공유": "share", "붙여": "attach",
    "켜": "enable", "꺼": "disable", "잠가": "lock", "풀어": "unlock", "닫아": "close",
    "열어": "open", "병합": "merge", "커밋": "commit", "푸시": "push", "태그": "tag",
    "발급": "issue", "회수": "revoke", "신청": "apply", "연결": "connect", "접수": "submit",
    "남겨": "create", "남기": "create", "환불": "refund", "확정": "confirm",
    "반납": "return", "대출": "borrow",
    # "확인 처리해줘" marks an alert as seen (acknowledge); 확인 alone checks, a read
    "확인 처리": "acknowledge", "확인처리": "acknowledge",
    "읽음 처리": "mark", "읽음처리": "mark",
}  # fmt: skip


def korean_verb_word(word: str) -> str | None:
    """The English change the Korean stem ``word`` names as a verb ("예약" -> ``"book"``,
    "취소" -> ``"cancel"``), else ``None``."""
    return KO_VERB.get(word)
