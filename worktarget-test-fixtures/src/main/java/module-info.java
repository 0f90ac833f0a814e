/**
 * Test support without dependencies: bounded waiting ({@code Await}), a test main in a child JVM
 * ({@code ChildMain}), a manual clock and scheduler ({@code ManualTime}), and the API dump that the build
 * checks every library module against.
 */
module org.vancetope.worktarget.testfixtures {
    exports org.vancetope.worktarget.testfixtures;
    exports org.vancetope.worktarget.testfixtures.api;
}
