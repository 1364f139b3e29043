"""Every retrieval mode finds the page of a query in Chinese, Japanese, Thai, Hindi and Arabic (words come
from assay.data.tokens: character bigrams for unspaced scripts, marks kept inside Indic and Arabic words)."""

import pytest

from assay.relevance.corpus import StudyDocument, StudyQuery
from assay.relevance.ranking import order
from assay.relevance.modes.runner import run_mode
from assay.relevance.params import RelevanceParams

# per script, six topics (as tests/test_relevance_bangla.py) in one frame sentence, so only the topic's own words
# tell the pages apart; no two topics share a word of their own (6 pages give LSA 5 directions, and two pages alike
# but for one word apiece could differ only along the dropped one: a limit of LSA, not of the tokens)
TOPICS = {
    "zh": ["路由器更换费用", "漫游套餐价格", "学生优惠证明", "携号转网申请", "停电补偿金额", "宽带安装时间"],
    "ja": ["ルーター交換手数料", "ローミング料金", "学割の証明書", "番号移行の書類", "障害時の返金額", "光回線の工事日"],
    "th": ["ค่าเปลี่ยนเราเตอร์", "แพ็กเกจโรมมิ่ง", "ส่วนลดนักศึกษา", "แบบฟอร์มย้ายค่าย", "เงินชดเชยไฟดับ", "วันติดตั้งเน็ตบ้าน"],
    "hi": ["राउटर बदलने का शुल्क", "रोमिंग पैक की क़ीमत", "छात्र छूट प्रमाण पत्र", "नंबर पोर्ट फ़ॉर्म",
           "बिजली कटौती मुआवज़ा", "ब्रॉडबैंड स्थापना तारीख़"],
    "ar": ["رسوم تغيير الراوتر", "سعر باقة التجوال", "إثبات خصم الطلاب", "نموذج نقل الرقم", "تعويض انقطاع الخدمة",
           "موعد تركيب الإنترنت"],
}
FRAME = {"zh": "{t}的规定。", "ja": "{t}について。", "th": "ข้อกำหนด{t}", "hi": "{t} के नियम।", "ar": "قواعد {t}."}


def study(script):
    topics = TOPICS[script]
    docs = [StudyDocument(doc_id=f"d{i}", family=f"f{i}", kind="policy", title=f"p{i}",
                          text=FRAME[script].format(t=topic), valid_from="2025-01-01")
            for i, topic in enumerate(topics)]
    queries = [StudyQuery(query_id=f"q{i}", task="current", text=topic, acceptable_citation_ids=(f"d{i}",))
               for i, topic in enumerate(topics)]
    return docs, queries


@pytest.mark.parametrize("script", sorted(TOPICS))
@pytest.mark.parametrize("mode", ["lexical", "semantic", "hybrid", "reranked", "graph"])
def test_a_query_retrieves_its_page_first_in_every_script(mode, script):
    docs, queries = study(script)
    result = run_mode(mode, RelevanceParams(semantic={"components": 5}), docs, queries)
    t = result.run.table.iloc[order(result.run.table)]
    top = t.groupby("qid").head(1).set_index("qid")["docno"].to_dict()
    assert top == {f"q{i}": f"d{i}" for i in range(len(TOPICS[script]))}
