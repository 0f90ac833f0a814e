package org.vancetope.worktarget.core.internal;

import java.util.Locale;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The one rule for names that become a directory ({@code dirName}, tenant, project, scope keys):
 * every place that turns such a name into a path segment checks it here first, before any lookup, so
 * {@code "../otherProject/x"} never reaches the file system.
 *
 * <p>A safe segment is 1 to {@link #MAX_LENGTH} characters, at most {@link #MAX_BYTES} bytes of UTF-8
 * (file systems count bytes; the library stores a descriptor under the name plus a suffix), and
 * <ul>
 *   <li>is not {@code .} or {@code ..} and does not start with {@code .} (hidden names are the
 *       library's own: {@code .worktarget}, {@code .rootdirs}, staging names);</li>
 *   <li>has no {@code /}, {@code \}, {@code :}, NUL or other control character (C0, DEL, C1), no
 *       line or paragraph separator, and no blank at either end;</li>
 *   <li>is well-formed text: no unpaired surrogate (the file system cannot store it), no
 *       noncharacter, and no U+FFFD, the replacement character a decoder puts where bytes were not
 *       valid text (a name that contains it was mangled on its way here).</li>
 * </ul>
 */
public final class Segments {
    /** What a token's projects use to grant every project of its tenant; never a project's name. */
    public static final String ALL_PROJECTS = "*";
    /** The longest accepted segment, in characters. */
    public static final int MAX_LENGTH = 128;
    /**
     * The longest accepted segment in bytes of UTF-8: 128 letters such as {@code 'é'} take 256, more than
     * a file name holds (255 on ext4, xfs, btrfs, tmpfs, APFS), and a RootDir's descriptor adds
     * {@code .properties} to its name.
     */
    public static final int MAX_BYTES = 240;
    /** What a safe segment is, for messages. */
    public static final String RULE = "a single name of 1 to " + MAX_LENGTH + " characters (at most " + MAX_BYTES
            + " bytes of UTF-8) that does not start "
            + "with '.', without '/', '\\', ':', control characters, U+FFFD or blanks at either end";

    private Segments() {
    }

    /**
     * Whether a name is a safe single path segment.
     *
     * @param name the name
     * @return true when safe
     */
    public static boolean isSafe(String name) {
        return problem(name) == null;
    }

    /**
     * What is wrong with a name, or null when it is a safe segment.
     *
     * @param name the name
     * @return a short reason (e.g. {@code "it starts with '.'"}), or null
     */
    public static String problem(String name) {
        if (name == null || name.isEmpty()) {
            return "it is empty";
        }
        if (name.length() > MAX_LENGTH) {
            return "it has " + name.length() + " characters";
        }
        long bytes = Utf8.length(name);
        if (bytes > MAX_BYTES) {
            return "it has " + bytes + " bytes of UTF-8 (a letter such as 'é' takes 2, a CJK character 3)";
        }
        if (name.startsWith(".")) {
            return name.equals(".") || name.equals("..") ? "it is '" + name + "'" : "it starts with '.'";
        }
        if (!name.strip().equals(name)) {
            return "it starts or ends with a blank";
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '/' || c == '\\' || c == ':') {
                return "it contains '" + c + "'";
            }
            if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
                return "it contains the control character U+" + hex(c);
            }
            if (c == '\uFFFD') {
                return "it contains U+FFFD, the mark of bytes that were not valid text";
            }
            if (Character.isHighSurrogate(c) && i + 1 < name.length() && Character.isLowSurrogate(name.charAt(i + 1))) {
                int cp = name.codePointAt(i);
                if (isNonCharacter(cp)) {
                    return "it contains the noncharacter U+" + Integer.toHexString(cp).toUpperCase(Locale.ROOT);
                }
                i++;
                continue;
            }
            if (Character.isSurrogate(c)) {
                return "it contains an unpaired surrogate U+" + hex(c);
            }
            if (isNonCharacter(c)) {
                return "it contains the noncharacter U+" + hex(c);
            }
        }
        return null;
    }

    private static boolean isNonCharacter(int cp) {
        return (cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE;
    }

    private static String hex(char c) {
        return String.format(Locale.ROOT, "%04X", (int) c);
    }

    /**
     * Checks a name and returns it.
     *
     * @param what what the name is, for the message (e.g. {@code "dirName"})
     * @param name the name
     * @return the name
     * @throws ToolException {@code path_escape} when unsafe; the message says what is allowed and what is wrong
     */
    public static String require(String what, String name) throws ToolException {
        String problem = problem(name);
        if (problem != null) {
            throw new ToolException(ErrorCode.PATH_ESCAPE, message(what, problem));
        }
        return name;
    }

    /**
     * What is wrong with a project's name, as a whole sentence, or null: a project is a safe segment other
     * than {@link #ALL_PROJECTS}, which a token uses to grant every project and which names none.
     *
     * @param what what the name is, for the message (e.g. {@code "hello.project"})
     * @param project the name
     * @return the refusal text, or null when the name is a project's
     */
    public static String projectMessage(String what, String project) {
        if (ALL_PROJECTS.equals(project)) {
            return what + " is '" + ALL_PROJECTS + "', which in a token's projects grants every project; it names "
                    + "none. Give the name of one project.";
        }
        String problem = problem(project);
        return problem == null ? null : message(what, problem);
    }

    /**
     * Checks a project's name and returns it (see {@link #projectMessage}).
     *
     * @param project the name
     * @return the name
     * @throws ToolException {@code invalid_params} for {@link #ALL_PROJECTS}, {@code path_escape} when unsafe
     */
    public static String requireProject(String project) throws ToolException {
        String refusal = projectMessage("project", project);
        if (refusal != null) {
            throw new ToolException(ALL_PROJECTS.equals(project) ? ErrorCode.INVALID_PARAMS : ErrorCode.PATH_ESCAPE,
                    refusal);
        }
        return project;
    }

    /**
     * The refusal text for an unsafe name (for callers that report it their own way, e.g. HTTP 400).
     *
     * @param what what the name is, e.g. {@code "tenant"}
     * @param problem the reason from {@link #problem(String)}
     * @return the message
     */
    public static String message(String what, String problem) {
        return what + " must be " + RULE + "; " + problem + ".";
    }
}
