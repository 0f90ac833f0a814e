package org.vancetope.worktarget.testfixtures.api.sample.internal;

/** Public, but in an internal package: not API. */
public class Hidden {
    /** Its constructor. */
    public Hidden() {
    }
}
