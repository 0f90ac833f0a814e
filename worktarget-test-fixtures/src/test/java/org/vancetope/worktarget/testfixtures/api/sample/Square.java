package org.vancetope.worktarget.testfixtures.api.sample;

/** A permitted class that opens the hierarchy again. */
public non-sealed class Square implements Shape {
    /** Its constructor. */
    public Square() {
    }

    @Override
    public double area() {
        return 1;
    }
}
