"""Who looks at a match: the public, one seat, or the organiser's full view."""

from __future__ import annotations

import pytest

from domain.viewer import Viewer


def test_the_three_kinds_of_viewer():
    public, full, seat = Viewer.public(), Viewer.full(), Viewer.for_seat(2)
    assert (public.is_public, public.is_full, public.seat) == (True, False, None)
    assert (full.is_public, full.is_full, full.seat) == (False, True, None)
    assert (seat.is_public, seat.is_full, seat.seat) == (False, False, 2)


def test_a_viewer_sees_a_seats_hidden_cards_only_as_that_seat_or_the_organiser():
    for seat in range(4):
        assert Viewer.full().can_see(seat)
        assert not Viewer.public().can_see(seat)
        assert Viewer.for_seat(1).can_see(seat) == (seat == 1)
    assert Viewer.full().can_see(None)
    assert not Viewer.for_seat(0).can_see(None) and not Viewer.public().can_see(None)


def test_viewers_are_values():
    assert Viewer.for_seat(0) == Viewer.for_seat(0) != Viewer.public()
    assert Viewer.public() == Viewer.public() != Viewer.full()
    assert len({Viewer.for_seat(1), Viewer.for_seat(1), Viewer.full()}) == 2


@pytest.mark.parametrize("seat", [-1, True, "0", 1.0])
def test_a_seat_is_a_number_from_zero(seat):
    with pytest.raises(ValueError):
        Viewer.for_seat(seat)


def test_the_full_view_is_nobodys_seat():
    with pytest.raises(ValueError):
        Viewer(seat=0, is_full=True)
