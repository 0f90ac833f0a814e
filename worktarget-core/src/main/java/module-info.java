/**
 * WorkTarget core: the tool catalog, the dispatcher that routes every call to the current work target's
 * backend, and the transfer API. The {@code internal} packages are shared with WorkTarget's own modules
 * only; they are not API.
 */
@SuppressWarnings("module") // the qualified exports name our own modules, which are built after this one
module org.vancetope.worktarget.core {
    requires transitive org.vancetope.worktarget.spi;
    requires org.slf4j;
    requires static com.github.luben.zstd_jni;   // optional: transfer.zstd is offered only when it is present

    exports org.vancetope.worktarget.core;
    exports org.vancetope.worktarget.core.transfer;

    exports org.vancetope.worktarget.core.internal to
            org.vancetope.worktarget.testkit, org.vancetope.worktarget.backend.local, org.vancetope.worktarget.backend.workspace, org.vancetope.worktarget.transfer, org.vancetope.worktarget.backend.daemon,
            org.vancetope.worktarget.mcp;
    exports org.vancetope.worktarget.core.internal.exec to
            org.vancetope.worktarget.testkit, org.vancetope.worktarget.backend.local, org.vancetope.worktarget.backend.workspace, org.vancetope.worktarget.backend.daemon;
    exports org.vancetope.worktarget.core.internal.file to
            org.vancetope.worktarget.testkit, org.vancetope.worktarget.backend.local, org.vancetope.worktarget.backend.workspace, org.vancetope.worktarget.transfer, org.vancetope.worktarget.backend.daemon;
    exports org.vancetope.worktarget.core.internal.home to
            org.vancetope.worktarget.testkit, org.vancetope.worktarget.backend.local, org.vancetope.worktarget.backend.workspace, org.vancetope.worktarget.backend.daemon;
    exports org.vancetope.worktarget.core.internal.path to
            org.vancetope.worktarget.testkit, org.vancetope.worktarget.backend.local, org.vancetope.worktarget.backend.workspace, org.vancetope.worktarget.transfer, org.vancetope.worktarget.backend.daemon,
            org.vancetope.worktarget.mcp;
    exports org.vancetope.worktarget.core.internal.transfer to
            org.vancetope.worktarget.testkit, org.vancetope.worktarget.backend.local, org.vancetope.worktarget.backend.workspace, org.vancetope.worktarget.transfer, org.vancetope.worktarget.backend.daemon;

    uses org.vancetope.worktarget.spi.BackendToolProvider;
}
