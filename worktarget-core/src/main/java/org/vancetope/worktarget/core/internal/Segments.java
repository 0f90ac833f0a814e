package org.vancetope.worktarget.core.internal;

import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The segment check for names that become one path segment ({@code dirName}, tenant, project, scope
 * keys): one segment, no {@code /}, {@code \}, NUL or other control characters, not {@code .} or
 * {@code ..}, at most {@link #MAX_LENGTH} characters. Runs before any lookup, so
 * {@code "../otherProject/x"} never reaches the file system.
 */
public final class Segments {
    /** The longest accepted segment. */
    public static final int MAX_LENGTH = 128;

    private Segments() {
    }

    /**
     * Whether a name is a safe single path segment.
     *
     * @param name the name
     * @return true when safe
     */
    public static boolean isSafe(String name) {
        if (name == null || name.isEmpty() || name.length() > MAX_LENGTH) {
            return false;
        }
        if (name.equals(".") || name.equals("..") || !name.strip().equals(name)) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '/' || c == '\\' || c < 0x20 || c == 0x7f || c == ':') {
                return false;
            }
        }
        return true;
    }

    /**
     * Checks a name and returns it.
     *
     * @param what what the name is, for the message (e.g. {@code "dirName"})
     * @param name the name
     * @return the name
     * @throws ToolException {@code path_escape} when unsafe; the message says what is allowed
     */
    public static String require(String what, String name) throws ToolException {
        if (!isSafe(name)) {
            throw new ToolException(ErrorCode.PATH_ESCAPE, what + " must be a single name of 1 to " + MAX_LENGTH
                    + " characters without '/', '\\', ':', control characters or surrounding blanks, and not '.' or '..'.");
        }
        return name;
    }
}
