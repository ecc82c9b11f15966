from shapes import Square, double


def apply(value: int) -> int:
    # double is applied twice below
    é = "😀"; twice = double(double(value))
    return twice + len(é)


def make() -> Square:
    square = Square(1.0)
    return square
