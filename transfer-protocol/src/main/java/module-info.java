/** The file-transfer protocol: the frames' JSON codec and the sender and receiver state machines. */
@SuppressWarnings("module") // the qualified exports name our own modules, which are built after this one
module org.vancetope.worktarget.transfer {
    requires transitive org.vancetope.worktarget.core;
    requires com.fasterxml.jackson.databind;

    exports org.vancetope.worktarget.transfer;
    exports org.vancetope.worktarget.transfer.internal to org.vancetope.worktarget.backend.daemon;
}
