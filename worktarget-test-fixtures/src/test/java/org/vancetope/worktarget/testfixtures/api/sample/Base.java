package org.vancetope.worktarget.testfixtures.api.sample;

/** Not API itself (package-private); its public members are, on its public subclass. */
abstract class Base {
    /**
     * Inherited by {@link Derived}.
     *
     * @return a greeting
     */
    public String inherited() {
        return "hi";
    }
}
