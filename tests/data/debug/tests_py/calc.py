"""A tiny module under test: the debug tests stop inside these functions."""


class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y


def total(values):
    result = 0
    for value in values:
        result += value
    return result


def mean(values):
    return total(values) / len(values)


def checked(value):
    try:
        raise ValueError("caught inside checked: %d" % value)
    except ValueError:
        return -value
