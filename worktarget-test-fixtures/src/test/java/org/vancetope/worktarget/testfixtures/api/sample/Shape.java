package org.vancetope.worktarget.testfixtures.api.sample;

/** A sealed interface, for the API dump's tests. */
public sealed interface Shape permits Square, Circle {
    /**
     * An abstract method.
     *
     * @return the area
     */
    double area();

    /**
     * A default method.
     *
     * @return a description
     */
    default String describe() {
        return getClass().getSimpleName();
    }
}
