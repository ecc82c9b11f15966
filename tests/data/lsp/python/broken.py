def f() -> int:
    return "not an int"


y = undefined_name
