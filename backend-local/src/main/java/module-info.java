/** The CLIENT backend: the file and exec tools on the local machine, in one work directory. */
module org.vancetope.worktarget.backend.local {
    requires transitive org.vancetope.worktarget.core;

    exports org.vancetope.worktarget.backend.local;
}
