/**
 * The WorkTarget testkit: contract suites a backend's tests extend, and strict fakes of the remote
 * targets, for use in test scope.
 */
@SuppressWarnings("requires-automatic") // Jimfs ships no module descriptor, only an automatic module name
module org.vancetope.worktarget.testkit {
    requires transitive org.vancetope.worktarget.core;
    requires transitive org.vancetope.worktarget.testfixtures;
    requires transitive org.junit.jupiter.api;
    requires transitive org.assertj.core;
    requires static com.google.common.jimfs; // optional: only the Jimfs flavours of FileToolsContract

    exports org.vancetope.worktarget.testkit;
}
