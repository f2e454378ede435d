"""``spans.unwrap``: a line break inside a paragraph reads as a space, as Markdown renders it, so an extractive
answer copied from a hard-wrapped file does not end where a line happens to; every other break stays."""

from hypothesis import given
from hypothesis import strategies as st

from grounded_rag.spans import unwrap


def test_a_line_break_inside_a_paragraph_becomes_one_space_at_the_offset_given():
    text, spaces = unwrap("who met while working on  \n   weather forecasting models.")
    assert text == "who met while working on weather forecasting models."
    assert [text[s] for s in spaces] == [" "] and text[: spaces[0]] == "who met while working on"
    assert unwrap("one\r\ntwo") == ("one two", [3])


def test_blocks_stay_blocks():
    text = ("# Benefits\nPensions are matched\nup to 4 percent.\n\n- an item\n  that wraps\n- another item\n"
            "1. first\n2) second\n> a quote\n| a | table |\n| b | row |\n```\ncode line\nmore code\n```\n"
            "after\nthe fence")
    out, spaces = unwrap(text)
    assert out.split("\n") == ["# Benefits", "Pensions are matched up to 4 percent.", "", "- an item that wraps",
                               "- another item", "1. first", "2) second", "> a quote", "| a | table |", "| b | row |",
                               "```", "code line", "more code", "```", "after the fence"]
    assert all(out[s] == " " for s in spaces) and len(spaces) == 3


@given(st.text(alphabet="ab #-|`>.1)\n\r\t", max_size=60))
def test_only_soft_breaks_change(text):
    out, spaces = unwrap(text)
    assert "".join(out.split()) == "".join(text.split()), "only whitespace changes"
    assert all(out[s] == " " for s in spaces) and spaces == sorted(set(spaces))
    assert out.count("\n") == text.count("\n") - len(spaces), "each soft break is one newline made a space"
    assert unwrap(out) == (out, []), "what is left are block breaks"
