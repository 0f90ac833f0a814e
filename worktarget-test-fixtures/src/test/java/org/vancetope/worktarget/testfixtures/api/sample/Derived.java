package org.vancetope.worktarget.testfixtures.api.sample;

/** A public class with a package-private superclass. */
public final class Derived extends Base {
    /** Its constructor. */
    public Derived() {
    }
}
