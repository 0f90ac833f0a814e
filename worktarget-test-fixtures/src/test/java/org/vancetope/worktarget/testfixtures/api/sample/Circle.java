package org.vancetope.worktarget.testfixtures.api.sample;

/**
 * A permitted record.
 *
 * @param radius the radius
 */
public record Circle(double radius) implements Shape {
    @Override
    public double area() {
        return Math.PI * radius * radius;
    }
}
