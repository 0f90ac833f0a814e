package org.vancetope.worktarget.core;

/**
 * Where the generic file and exec tools of a process run.
 */
public enum WorkTargetKind {
    /** The user's machine, through the client ("Foot") bound to the process's session. */
    CLIENT,
    /** A RootDir of the server workspace; the target name selects a named RootDir, none the temp RootDir. */
    WORK,
    /** A named daemon of the project; the target name is the daemon name and is mandatory. */
    DAEMON
}
