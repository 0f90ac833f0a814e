/** The WORK backend: the file and exec tools in server-side workspace RootDirs. */
@SuppressWarnings("module") // the qualified exports name our own modules, which are built after this one
module org.vancetope.worktarget.backend.workspace {
    requires transitive org.vancetope.worktarget.core;
    requires org.slf4j;

    exports org.vancetope.worktarget.backend.workspace;
    exports org.vancetope.worktarget.backend.workspace.internal to org.vancetope.worktarget.backend.daemon;
}
