package org.vancetope.worktarget.core.internal.file;

/**
 * Text handed to {@link java.util.regex.Matcher} that checks the call's {@link CallDeadline} every
 * {@value #CHECK_EVERY} characters read. The regex engine cannot be interrupted, but it reads its input
 * only through {@link CharSequence#charAt}, so a backtracking search over this text stops (with
 * {@link CallDeadline.Stop}) soon after the deadline passes or the call is cancelled. One instance per
 * thread: the counter is not shared.
 */
final class GuardedText implements CharSequence {
    /** Characters read between two deadline checks. */
    static final int CHECK_EVERY = 1024;

    private final CharSequence text;
    private final CallDeadline deadline;
    private final String rel;
    private int reads;

    /**
     * Guards a text.
     *
     * @param text the text
     * @param deadline the call's deadline
     * @param rel the file the text comes from, for the timeout message
     */
    GuardedText(CharSequence text, CallDeadline deadline, String rel) {
        this.text = text;
        this.deadline = deadline;
        this.rel = rel;
    }

    @Override
    public char charAt(int index) {
        if (++reads >= CHECK_EVERY) {
            reads = 0;
            deadline.check(rel);
        }
        return text.charAt(index);
    }

    @Override
    public int length() {
        return text.length();
    }

    @Override
    public CharSequence subSequence(int start, int end) {
        return text.subSequence(start, end);
    }

    @Override
    public String toString() {
        return text.toString();
    }
}
