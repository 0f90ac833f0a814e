package org.vancetope.worktarget.spi;

/** The levels of the settings cascade, narrowest first. */
public enum SettingLevel {
    /** A user's own setting (id = user login). */
    USER,
    /** A project setting (id = project). */
    PROJECT,
    /** The tenant-wide setting (id = tenant). */
    TENANT
}
