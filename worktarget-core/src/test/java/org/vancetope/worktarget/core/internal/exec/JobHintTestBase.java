package org.vancetope.worktarget.core.internal.exec;

import static org.vancetope.worktarget.core.internal.exec.TestRoots.root;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.spi.ToolException;

/** What the tests of results' hints share: an engine of their own that runs real jobs in a test directory. */
abstract class JobHintTestBase {
    /** The jobs' environment: a plain PATH. */
    static final Map<String, String> ENV = Map.of("PATH", "/usr/bin:/bin");

    @TempDir
    Path dir;
    private ExecEngine engine;

    @BeforeEach
    void startEngine() {
        engine = ExecEngine.builder().build();
    }

    @AfterEach
    void closeEngine() {
        engine.close();
    }

    /**
     * The engine the jobs run in.
     *
     * @return the engine
     */
    ExecEngine engine() {
        return engine;
    }

    /**
     * Runs a command in the test directory and waits up to a minute for it.
     *
     * @param command the command
     * @return its result
     */
    ExecResult run(String command) throws ToolException {
        return engine.run(new ExecRequest("s", command, root(dir), ENV, 60_000L, null, null));
    }
}
