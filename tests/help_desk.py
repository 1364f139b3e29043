"""A help desk's own data in seven languages outside en/bn (es, de, ar, hi, zh-Hans, ja, th), for end-to-end
tests that replace `assay init`'s example with a team's cases, corpus, earlier questions and labelled pairs
(with a pair kind of its own, ``refusal``): tests/test_e2e_languages.py and tests/test_packaging.py."""

from __future__ import annotations

from pathlib import Path

from conftest import write_jsonl

# case id -> (lang, question, document, fact)
CASES = {
    "es-1": ("es", "¿Cuántos días tengo para devolver un producto?", "es-devoluciones", "30 días"),
    "es-2": ("es", "¿Cuánto cuesta el envío a Canarias?", "es-envios", "12 euros"),
    "de-1": ("de", "Wie lange kann ich meine Bestellung zurückgeben?", "de-rueckgabe", "30 Tagen"),
    "de-2": ("de", "Was kostet der Versand nach Österreich?", "de-versand", "9 Euro"),
    "ar-1": ("ar", "خلال كم يوما يمكنني إرجاع المنتج؟", "ar-returns", "14 يوما"),
    "ar-2": ("ar", "كم رسوم الشحن إلى دبي؟", "ar-shipping", "20 درهما"),
    "hi-1": ("hi", "सामान वापस करने के लिए कितने दिन हैं?", "hi-returns", "10 दिन"),
    "hi-2": ("hi", "दिल्ली में डिलीवरी शुल्क कितना है?", "hi-shipping", "50 रुपये"),
    "zh-1": ("zh-Hans", "签收后多少天内可以退货？", "zh-returns", "七天"),
    "zh-2": ("zh-Hans", "寄到上海的运费是多少？", "zh-shipping", "十元"),
    "ja-1": ("ja", "返品は何日以内にできますか？", "ja-returns", "14日以内"),
    "ja-2": ("ja", "北海道への送料はいくらですか？", "ja-shipping", "800円"),
    "th-1": ("th", "คืนสินค้าได้ภายในกี่วัน", "th-returns", "7 วัน"),
    "th-2": ("th", "ค่าส่งไปเชียงใหม่เท่าไร", "th-shipping", "60 บาท"),
}
LANGS = ("ar", "de", "es", "hi", "ja", "th", "zh-Hans")

# document id -> (title, lang, text)
DOCS = {
    "es-devoluciones": ("Devoluciones", "es", "Puede devolver un producto dentro de 30 días desde la entrega. "
                        "El reembolso llega a su tarjeta en cinco días hábiles."),
    "es-envios": ("Envíos", "es", "El envío a Canarias cuesta 12 euros. Los pedidos salen del almacén de Madrid cada mañana."),
    "de-rueckgabe": ("Rückgabe", "de", "Sie können Ihre Bestellung innerhalb von 30 Tagen zurückgeben. "
                     "Die Erstattung erfolgt über die ursprüngliche Zahlungsart."),
    "de-versand": ("Versand", "de", "Der Versand nach Österreich kostet 9 Euro. Pakete werden von Montag bis Freitag zugestellt."),
    "ar-returns": ("الإرجاع", "ar", "يمكنك إرجاع المنتج خلال 14 يوما من تاريخ الشراء. يعاد المبلغ إلى بطاقتك."),
    "ar-shipping": ("الشحن", "ar", "رسوم الشحن إلى دبي 20 درهما. يصل الطلب خلال يومين."),
    "hi-returns": ("वापसी", "hi", "आप डिलीवरी के 10 दिन के भीतर सामान वापस कर सकते हैं। पैसा पाँच दिन में खाते में आता है।"),
    "hi-shipping": ("डिलीवरी", "hi", "दिल्ली में डिलीवरी शुल्क 50 रुपये है। ऑर्डर अगले दिन पहुँचता है।"),
    "zh-returns": ("退货", "zh-Hans", "商品签收后七天内可以申请退货。退款将在三个工作日内退回原支付账户。"),
    "zh-shipping": ("运费", "zh-Hans", "寄往上海的运费是十元。订单会在当天发出。"),
    "ja-returns": ("返品", "ja", "商品到着後14日以内であれば返品できます。返金はクレジットカードに戻ります。"),
    "ja-shipping": ("送料", "ja", "北海道への送料は800円です。注文は翌日に発送されます。"),
    "th-returns": ("การคืนสินค้า", "th", "คุณสามารถคืนสินค้าได้ภายใน 7 วันหลังได้รับสินค้า เงินคืนจะเข้าบัญชีภายในสามวัน"),
    "th-shipping": ("ค่าส่ง", "th", "ค่าส่งไปเชียงใหม่คือ 60 บาท สินค้าจะถึงภายในสองวัน"),
}

# earlier questions (data/sources/earlier_questions.jsonl, line = position + 1): one near-copy per language, with
# its word-set Jaccard against the case worked out by hand (leakage words: NFKC + case-folded tokens minus
# assay's short English stop-word list, which holds none of these words)
SOURCES = [
    # es-1 {cuántos días tengo para devolver un producto} vs {... el ...}: 6 shared of 8 -> 0.75
    ("es-1", "¿Cuántos días tengo para devolver el producto?", 6 / 8),
    # de-1 {wie lange kann ich meine bestellung zurückgeben} vs {... eine ...}: 6 shared of 8 -> 0.75
    ("de-1", "Wie lange kann ich eine Bestellung zurückgeben?", 6 / 8),
    # ar-1 {خلال كم يوما يمكنني إرجاع المنتج} vs {... أستطيع ...}: 5 shared of 7 -> 0.7143
    ("ar-1", "خلال كم يوما أستطيع إرجاع المنتج؟", 5 / 7),
    # hi-1's 8 words (vowel signs kept: सामान वापस करने के लिए कितने दिन हैं) all in the source, which adds मिलते: 8 of 9
    ("hi-1", "सामान वापस करने के लिए कितने दिन मिलते हैं?", 8 / 9),
    # zh-1 签收后多少天内可以退货 -> 10 bigrams (签收 收后 后多 多少 少天 天内 内可 可以 以退 退货); the source adds
    # 请问 and 问签: 10 shared of 12 -> 0.8333
    ("zh-1", "请问签收后多少天内可以退货", 10 / 12),
    # ja-1 返品は何日以内にできますか -> 12 bigrams; the source 返品は何日以内ならできますか -> 13; shared: 返品 品は は何
    # 何日 日以 以内 でき きま ます すか = 10; union 12 + 13 - 10 = 15 -> 0.6667
    ("ja-1", "返品は何日以内ならできますか", 10 / 15),
    # th-1 คืนสินค้าได้ภายในกี่วัน: 16 characters with their marks (คื น สิ น ค้ า ไ ด้ ภ า ย ใ น กี่ วั น) -> 15 bigrams;
    # the source adds คะ (ค ะ: ะ is a letter, not a mark) -> 2 more bigrams (นค, คะ): 15 shared of 17 -> 0.8824
    ("th-1", "คืนสินค้าได้ภายในกี่วันคะ", 15 / 17),
]


def help_desk_case(cid: str) -> dict:
    lang, question, doc, fact = CASES[cid]
    return {"id": cid, "question": question, "task": "lookup", "set": "golden" if cid.endswith("1") else "production_like",
            "lang": lang, "expect": "answer", "doc_ids": [doc], "facts": [fact],
            "why": "the page states it in the customer's language"}


def help_desk_pairs() -> list[dict]:
    """Per language: a clear pair (right fact vs wrong fact) and a pair of the project's own kind, refusal."""
    rows = []
    for cid, (lang, question, doc, fact) in CASES.items():
        if cid.endswith("1"):
            wrong = fact.replace("1", "9").replace("3", "8").replace("7", "5").replace("七", "五")
            rows.append({"id": f"clear-{cid}", "case_question": question, "facts": [fact], "a": f"{fact} [source: {doc}]",
                         "b": f"{wrong} [source: {doc}]", "kind": "clear", "lang": lang, "ann1": "a", "ann2": "a", "final": "a"})
        else:
            rows.append({"id": f"refusal-{cid}", "case_question": question, "facts": [fact], "a": "—",
                         "b": f"{fact} [source: {doc}]", "kind": "refusal", "lang": lang, "ann1": "b", "ann2": "b", "final": "b"})
    return rows


def write_help_desk(root: Path) -> None:
    data = root / "data"
    for old in (data / "corpus").glob("*.md"):
        old.unlink()
    for did, (title, lang, text) in DOCS.items():
        (data / "corpus" / f"{did}.md").write_text(f"---\ntitle: {title}\nlang: {lang}\nupdated: 2026-01-15\n---\n{text}\n",
                                                   encoding="utf-8")
    write_jsonl(data / "cases.jsonl", [help_desk_case(c) for c in CASES])
    for old in (data / "sources").iterdir():
        old.unlink()
    write_jsonl(data / "sources" / "earlier_questions.jsonl", [{"question": q} for _, q, _ in SOURCES])
    write_jsonl(data / "pairs.jsonl", help_desk_pairs())
    params = root / "params.yaml"
    text = params.read_text(encoding="utf-8")
    default = "kinds: [clear, verbose_tie, padded_wrong, cite, tie, self]"
    assert default in text
    params.write_text(text.replace(default, "kinds: [clear, refusal]"), encoding="utf-8")
