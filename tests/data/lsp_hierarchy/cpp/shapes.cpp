#include "shapes.hpp"

double total_area(const Shape &first, const Shape &second) {
    return first.area() + second.area();
}

int main() {
    Square square;
    Circle circle;
    return static_cast<int>(total_area(square, circle));
}
