from pkg.core import Store


def run() -> None:
    store = Store()
    print(store)
