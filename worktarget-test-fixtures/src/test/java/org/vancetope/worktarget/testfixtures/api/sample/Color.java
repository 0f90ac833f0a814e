package org.vancetope.worktarget.testfixtures.api.sample;

/** An enum, for the API dump's tests: constants in declaration order, not alphabetical. */
public enum Color {
    /** Declared first. */
    RED,
    /** Declared second. */
    BLUE {
        @Override
        public String label() {
            return "blue";
        }
    },
    /** Declared third. */
    AMBER;

    /**
     * A method.
     *
     * @return the label
     */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
