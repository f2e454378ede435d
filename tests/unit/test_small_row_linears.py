"""The small-row matmul layout: timed per (weight shape, row count) at first use, equal to ``F.linear`` up to float
rounding, and never used for one row (standard decoding's, the reference) or for a prefill's many rows."""

import torch

from grounded_rag.speedups import SMALL_ROWS, SmallRowLayouts, _transposed, small_row_linears


def _model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(64, 4096), torch.nn.Linear(4096, 64, bias=False))


def test_outputs_equal_f_linear_up_to_rounding_for_every_row_count():
    model = _model()
    reference = {rows: model(torch.randn(rows, 64, generator=torch.Generator().manual_seed(rows)))
                 for rows in range(1, 21)}
    layouts = small_row_linears(model)
    for rows, expected in reference.items():
        got = model(torch.randn(rows, 64, generator=torch.Generator().manual_seed(rows)))
        torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5)
    timed_rows = sorted({rows for *_, rows in layouts.transposed})
    assert timed_rows == list(range(SMALL_ROWS[0], SMALL_ROWS[1] + 1))  # 1 row and 17+ rows: F.linear, never timed
    assert {(out, inp) for out, inp, _ in layouts.transposed} == {(4096, 64), (64, 4096)}  # one entry per shape


def test_a_choice_is_made_once_and_then_followed():
    layer = torch.nn.Linear(64, 256)
    layouts = small_row_linears(layer)
    x = torch.randn(3, 64)
    layer(x)
    assert list(layouts.transposed) == [(256, 64, 3)]
    layouts.transposed[(256, 64, 3)] = True  # as where the other layout was timed faster
    assert torch.equal(layer(x), _transposed(layer.weight, layer.bias, x))
    layouts.active = False  # the reference, whatever was chosen (the bench's comparison)
    assert torch.equal(layer(x), torch.nn.functional.linear(x, layer.weight, layer.bias))
    layouts.active = True
    layouts.transposed[(256, 64, 3)] = False
    assert torch.equal(layer(x), torch.nn.functional.linear(x, layer.weight, layer.bias))


def test_leading_dimensions_are_kept():
    layer = torch.nn.Linear(8, 5)
    small_row_linears(layer, SmallRowLayouts())
    x = torch.randn(2, 1, 8)  # (batch, one new token, hidden), as a decode step feeds it
    assert layer(x).shape == (2, 1, 5)
    torch.testing.assert_close(layer(x), torch.nn.functional.linear(x, layer.weight, layer.bias))
