"""Where a reply ends: stop strings anywhere, the plain layout's turn end (a blank line) once the reply has begun."""

from grounded_rag.driver import reply_end as _reply_end
from grounded_rag.prompts import PLAIN_TURN_END

ENDS = (PLAIN_TURN_END,)


def test_a_blank_line_ends_a_reply_once_it_has_begun():
    assert _reply_end("Rome.\n\nUser: and Paris?", [], ENDS) == 5
    assert _reply_end("\n\nRome.", [], ENDS) == -1  # the reply opens after a blank line: it goes on
    assert _reply_end("\n\nRome.\n\nQuestion: ...", [], ENDS) == 7
    assert _reply_end("Rome\nItaly", [], ENDS) == -1  # a line break inside the reply is not the turn's end
    assert _reply_end("Rome.\n\nUser:", [], ()) == -1  # a chat model's reply ends at its own token


def test_a_stop_string_ends_the_reply_wherever_it_is():
    assert _reply_end("\nRome", ["\n"], ENDS) == 0
    assert _reply_end("Rome. User: x\n\nmore", ["User:"], ENDS) == 6
