package org.vancetope.worktarget.testfixtures.api.sample;

/**
 * A record, for the API dump's tests: components in declaration order, not alphabetical.
 *
 * @param y the second letter, declared first
 * @param x the first letter
 */
public record Point(int y, int x) {
    /**
     * The origin.
     *
     * @return (0, 0)
     */
    public static Point origin() {
        return new Point(0, 0);
    }

    /**
     * A method of its own.
     *
     * @return y + x
     */
    public int sum() {
        return y + x;
    }
}
