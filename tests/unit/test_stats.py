"""`resin stats` figures add up: the grounded share is of the passages indexed now, never over 1."""

from resin.indexes.build import Builder
from resin.indexes.documents import SECTION_BREAK, Document
from resin.indexes.reading import load_documents
from resin.testing.chat import ScriptedChatModel

from ..conftest import SAMPLE_DOCS, units_json


def share(index) -> tuple[float | None, int, int]:
    figures = index.stats()
    return figures["grounded_share"], figures["units"], figures["ungrounded_units"]


def test_the_parser_keeps_every_unit_it_proposes_after_deletes_edits_and_repeats(
    open_index, nlp_extractor
):
    index = open_index()
    docs = load_documents([SAMPLE_DOCS])[0]
    builder = Builder(index, None, nlp=nlp_extractor)
    builder.run(docs)
    assert share(index)[0] == 1.0 and share(index)[2] == 0
    assert builder.delete("caldmere")
    assert share(index)[0] == 1.0  # the deleted document's cached proposals are not counted
    edited = next(d for d in docs if d.id == "orrin-dam")
    builder.run([Document(edited.id, edited.title, edited.text + "\n\nIt was finished in 1901.")])
    assert share(index)[0] == 1.0  # nor the proposals of the text before the edit
    # one document whose passages repeat: each copy holds the cached units, and counts them
    paragraph = next(d for d in docs if d.id == "hessa-varn").text
    repeated = Document("repeats", "Hessa Varn", SECTION_BREAK.join([paragraph] * 3))
    report = builder.run([repeated])
    assert report.parse_cache_hits == 3
    assert len(index.catalog.unit_ids("repeats")) == 3 * len(index.catalog.unit_ids("hessa-varn"))
    assert share(index)[0] == 1.0
    # copies of documents already indexed, made with --as-new, reuse the cache the same way
    Builder(index, None, nlp=nlp_extractor, as_new=True).run(
        [Document(f"copy/{d.id}", d.title, d.text) for d in docs[:3]]
    )
    assert share(index)[0] == 1.0


def test_the_share_counts_dropped_proposals_of_the_passages_indexed_now(open_index, capsys):
    """A model that proposes one grounded and one ungrounded unit per passage keeps half."""

    def relation(quote: str, subject: str, predicate: str, obj: str) -> dict:
        return dict(quote=quote, kind="relation", subject=subject, predicate=predicate, object=obj)

    grounded = relation("Hessa Varn designed the dam.", "Hessa Varn", "designed", "the dam")
    ungrounded = relation("Napoleon built the moon.", "Napoleon", "built", "the moon")

    def respond(messages, kwargs):
        return units_json(grounded, ungrounded)

    index = open_index()
    text = "Hessa Varn designed the dam."
    docs = [Document(f"d{i}", f"Dam {i}", text) for i in range(3)]
    builder = Builder(index, ScriptedChatModel(responder=respond))
    builder.run(docs)
    assert share(index) == (0.5, 3, 3)
    assert builder.delete("d0")
    assert share(index) == (0.5, 2, 2)
    # the same passage twice in one document: both copies' proposals count, and both units
    builder.run([Document("twice", "Dam 1", SECTION_BREAK.join([text, text]))])
    assert share(index) == (0.5, 4, 4)

    from resin.cli import main

    index.close()
    assert main(["stats", "--index", str(index.config.path)]) == 0
    assert "grounded share   50.0% (4 ungrounded, 0 invalid dropped)" in capsys.readouterr().out
