"""Corpus documents: each bad file is named by line and field, all bad files in one run."""

import pytest

from assay.core.errors import InputError
from assay.data.corpus import document_ids, load_corpus, parse_document

HEADER = "---\ntitle: Trial\nlang: en\nupdated: 2026-01-01\n---\n"


def write(folder, name, data: bytes | str):
    path = folder / name
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def test_a_good_document(tmp_path):
    doc = parse_document(write(tmp_path, "doc-a.md", HEADER + "First.\n\nSecond.\n"))
    assert (doc.id, doc.title, str(doc.updated), doc.paragraphs()) == ("doc-a", "Trial", "2026-01-01", ["First.", "Second."])


def test_invalid_utf8_names_line_and_byte(tmp_path):
    path = write(tmp_path, "doc-a.md", HEADER.encode() + b"Fine line.\nThe fee is \xe9 high.\n")
    with pytest.raises(InputError) as err:
        parse_document(path)
    # line 7 is the second body line; the bad byte is the 12th byte of "The fee is \xe9 high."
    assert str(err.value).startswith(f"{path}:7: not valid UTF-8: byte(s) e9 at byte 12 of the line")


@pytest.mark.parametrize("value, needle", [("2024-13-45", "month"), ("2024-02-30", "day"), ("soon", "")])
def test_an_impossible_date_is_a_field_error_at_its_line(tmp_path, value, needle):
    path = write(tmp_path, "doc-a.md", HEADER.replace("2026-01-01", value) + "Text.\n")
    with pytest.raises(InputError) as err:
        parse_document(path)
    message = str(err.value)
    assert message.startswith(f"{path}:4: field 'updated': '{value}' is not valid") and needle in message
    assert "Traceback" not in message


@pytest.mark.parametrize("body", ["", "\n", "\n   \n\n"])
def test_an_empty_body_is_refused(tmp_path, body):
    path = write(tmp_path, "doc-a.md", HEADER + body)
    with pytest.raises(InputError) as err:
        parse_document(path)
    assert str(err.value) == (f"{path}:5: the document has no text after its header "
                              "(fix: write the document below the closing ---, or delete the file)")


def test_every_bad_file_is_reported_in_one_run(tmp_path):
    write(tmp_path, "a-good.md", HEADER + "Text.\n")
    write(tmp_path, "b-bytes.md", HEADER.encode() + b"\xff\n")
    write(tmp_path, "c-date.md", HEADER.replace("2026-01-01", "2024-13-45") + "Text.\n")
    write(tmp_path, "d-empty.md", HEADER)
    write(tmp_path, "e-old.md", HEADER.replace("lang: en", "lang: en\nsuperseded_by: c-date") + "Old.\n")
    write(tmp_path, "f-gone.md", HEADER.replace("lang: en", "lang: en\nsuperseded_by: nowhere") + "Old.\n")
    with pytest.raises(InputError) as err:
        load_corpus(tmp_path)
    lines = str(err.value).splitlines()
    # one problem per bad file; a superseded_by naming a file with problems of its own is not repeated
    assert [ln.split(":")[0].rsplit("/", 1)[-1] for ln in lines] == ["b-bytes.md", "c-date.md", "d-empty.md", "f-gone.md"]
    assert "'nowhere' is not a document in the corpus" in lines[-1]
    assert document_ids(tmp_path) == ["a-good", "b-bytes", "c-date", "d-empty", "e-old", "f-gone"]


def test_a_folder_without_documents_is_refused(tmp_path):
    with pytest.raises(InputError, match="holds no documents"):
        load_corpus(tmp_path)
