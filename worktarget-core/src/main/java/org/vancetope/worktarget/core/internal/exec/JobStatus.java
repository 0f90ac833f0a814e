package org.vancetope.worktarget.core.internal.exec;

import java.util.Locale;

/**
 * The state of an exec job as tools report it.
 */
public enum JobStatus {
    /** The shell still runs (or its output is still being drained). */
    RUNNING,
    /** The shell ended with exit code 0. */
    EXITED,
    /** The shell ended with a non-zero exit code (including signals from outside the engine). */
    FAILED,
    /** The job was ended by {@code exec_kill} or by closing its scope, RootDir or engine. */
    KILLED,
    /** The job was ended by its {@code deadlineSeconds} watchdog. */
    TIMED_OUT;

    /**
     * The status as tools report it, e.g. {@code "timed_out"}.
     *
     * @return the lower-case wire form
     */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Whether the job has ended.
     *
     * @return true for every status but {@link #RUNNING}
     */
    public boolean finished() {
        return this != RUNNING;
    }
}
