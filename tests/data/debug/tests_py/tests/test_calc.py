from calc import Point, checked, mean, total


def test_total_of_three():
    numbers = [1, 2, 3]
    expected = 6
    origin = Point(1, 2)
    assert total(numbers) == expected, origin


def test_mean():
    sample = [2, 4]
    assert mean(sample) == 3


def test_checked():
    assert checked(5) == -5


class TestEdges:
    def test_empty(self):
        empty = []
        assert total(empty) == 0
