#pragma once

struct Shape {
    virtual ~Shape() = default;
    virtual double area() const = 0;
};

struct Polygon : Shape {
    virtual int sides() const = 0;
};

struct Square : Polygon {
    double side = 1.0;
    double area() const override { return side * side; }
    int sides() const override { return 4; }
};

struct Circle : Shape {
    double radius = 1.0;
    double area() const override { return 3.14 * radius * radius; }
};

double total_area(const Shape &first, const Shape &second);
