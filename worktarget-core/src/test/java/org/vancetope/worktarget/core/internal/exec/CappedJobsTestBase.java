package org.vancetope.worktarget.core.internal.exec;

import static org.vancetope.worktarget.core.internal.exec.TestRoots.root;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.spi.ToolException;

/**
 * What the tests of a cap in a second cgroup v1 hierarchy share: a test group in the pids hierarchy and one in
 * the cap's, both below this JVM's own and removed with what runs in them afterwards; the engine the test
 * builds; a job run in the test directory. Skipped with the reason where such groups cannot be made.
 */
abstract class CappedJobsTestBase {
    /** The jobs' environment: a plain PATH. */
    static final Map<String, String> ENV = Map.of("PATH", "/usr/bin:/bin");

    @TempDir
    Path dir;
    /** The test's group in the pids hierarchy. */
    Path pids;
    /** The test's group in the cap's hierarchy. */
    Path capped;
    /** The engine the test built, closed afterwards. */
    ExecEngine engine;

    /**
     * The controller of the cap's hierarchy.
     *
     * @return e.g. {@code memory}
     */
    abstract String controller();

    /**
     * A file the controller gives every group, to tell that the hierarchy has it.
     *
     * @return e.g. {@code memory.limit_in_bytes}
     */
    abstract String controllerFile();

    @BeforeEach
    void makeTestGroups() throws IOException {
        pids = TestGroups.testParent("pids", "pids.max");
        capped = TestGroups.testParent(controller(), controllerFile());
        if (pids == null || capped == null) {
            TestGroups.removeAll(pids);
            TestGroups.removeAll(capped);
        }
        Assumptions.assumeTrue(pids != null && capped != null, "no pids and " + controller() + " control groups can "
                + "be made here (needs root and the pids and " + controller() + " controllers of cgroup v1 below "
                + "this JVM's groups)");
    }

    @AfterEach
    void removeTestGroups() throws IOException {
        if (engine != null) {
            engine.close();
        }
        TestGroups.removeAll(pids);
        TestGroups.removeAll(capped);
    }

    /**
     * Runs a command in the test directory.
     *
     * @param command the command
     * @param waitMs how long to wait for it
     * @return its result
     */
    ExecResult run(String command, long waitMs) throws ToolException {
        return engine.run(new ExecRequest("s", command, root(dir), ENV, waitMs, null, null));
    }
}
