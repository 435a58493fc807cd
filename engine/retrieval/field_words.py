"""Korean words for the quantities and data fields a catalog names in English.

A catalog written in English names its fields ``band_gap``, ``density``, ``bulk_modulus``,
``email``; a Korean request asks for 밴드갭, 밀도, 체적 탄성률, 이메일. Without Korean aliases in
the catalog no field of it resolved (trial T3: 0 of 15 Korean requests to the team's English
catalogs), so the plan covered no field and fallbacks had none to match. Field resolution
(:mod:`schemarouter.retrieval.fields`) adds, for each English phrase of a registered field
(its name, aliases, semantic id), the Korean words this table gives for that phrase: a field
resolves from a Korean request when its catalog says in English what it is.

Only field resolution reads it, never the lexical channel or the documents (the general
glossary of :mod:`schemarouter.index.gloss` keeps domain terms out on purpose), so no route's
fused score changes. The words are general vocabulary of measured quantities and of the data
fields people ask for, written once, not drawn from any benchmark or trial request. A Korean
word one syllable long is never matched (field resolution counts Hangul words from two), and
설명 is left out for ``description``: "설명해줘" asks for an explanation far more often than for
a description field.
"""

from __future__ import annotations

__all__ = ["KOREAN_FIELD_WORDS"]

#: English phrase (as a field name, alias or semantic id writes it) -> Korean words for it.
KOREAN_FIELD_WORDS: dict[str, tuple[str, ...]] = {
    # electronic, optical and magnetic
    "band gap": ("밴드갭", "밴드 갭", "띠간격", "띠 간격", "에너지 갭"),
    "band structure": ("밴드 구조", "밴드구조"),
    "fermi energy": ("페르미 에너지", "페르미 준위"),
    "fermi level": ("페르미 준위", "페르미 레벨"),
    "work function": ("일함수", "일 함수"),
    "dielectric constant": ("유전 상수", "유전상수", "유전율"),
    "refractive index": ("굴절률",),
    "magnetization": ("자화", "자화량"),
    "magnetic moment": ("자기 모멘트", "자기모멘트"),
    "efficiency": ("효율",),
    # energies and thermodynamics
    "formation energy": ("형성 에너지", "형성에너지", "생성 에너지", "생성에너지"),
    "total energy": ("총 에너지", "전체 에너지", "총에너지"),
    "energy": ("에너지",),
    "enthalpy": ("엔탈피",),
    "entropy": ("엔트로피",),
    "heat capacity": ("열용량", "열 용량"),
    "specific heat": ("비열",),
    "melting point": ("녹는점", "융점", "용융점"),
    "boiling point": ("끓는점", "비등점", "비점"),
    "temperature": ("온도", "기온"),
    "pressure": ("압력",),
    # structure
    "density": ("밀도",),
    "volume": ("부피", "체적"),
    "cell volume": ("셀 부피", "단위포 부피", "단위 셀 부피", "격자 부피"),
    "lattice constant": ("격자 상수", "격자상수"),
    "lattice parameter": ("격자 상수", "격자상수", "격자 파라미터"),
    "space group": ("공간군", "공간 군"),
    "crystal system": ("결정계",),
    "formula": ("화학식", "조성식"),
    "molecular weight": ("분자량",),
    "molar mass": ("몰 질량", "몰질량"),
    "solubility": ("용해도",),
    # mechanical
    "bulk modulus": ("체적 탄성률", "체적탄성률", "부피 탄성률", "체적 탄성 계수", "체적탄성계수"),
    "shear modulus": ("전단 탄성률", "전단탄성률", "전단 탄성 계수", "전단 계수"),
    "young modulus": ("영률", "영 계수", "영 탄성률"),
    "youngs modulus": ("영률", "영 계수", "영 탄성률"),
    "poisson ratio": ("푸아송 비", "포아송 비", "포아송비", "푸아송비"),
    "hardness": ("경도",),
    "thermal conductivity": ("열전도도", "열전도율", "열 전도도", "열 전도율"),
    "electrical conductivity": ("전기 전도도", "전기전도도", "전기 전도율"),
    "conductivity": ("전도도", "전도율"),
    "resistivity": ("비저항", "저항률"),
    "thickness": ("두께",),
    "mass": ("질량",),
    "weight": ("무게", "중량"),
    "length": ("길이",),
    "width": ("너비",),
    "height": ("높이",),
    "area": ("면적", "넓이"),
    "speed": ("속도", "속력"),
    "velocity": ("속도",),
    # weather and places
    "humidity": ("습도",),
    "wind speed": ("풍속",),
    "precipitation": ("강수량",),
    "population": ("인구",),
    "address": ("주소",),
    # business records
    "price": ("가격",),
    "cost": ("비용",),
    "amount": ("금액",),
    "quantity": ("수량",),
    "stock": ("재고",),
    "balance": ("잔액", "잔고"),
    "salary": ("급여", "월급", "연봉"),
    "email": ("이메일", "메일 주소", "이메일 주소"),
    "phone": ("전화번호", "전화 번호"),
    "phone number": ("전화번호", "전화 번호"),
    "name": ("이름", "성명"),
    "title": ("제목",),
    "author": ("저자",),
    "abstract": ("초록",),
    "status": ("상태",),
    "date": ("날짜", "일자"),
    "rating": ("평점",),
    "score": ("점수",),
}
