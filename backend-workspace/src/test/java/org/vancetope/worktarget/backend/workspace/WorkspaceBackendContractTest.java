package org.vancetope.worktarget.backend.workspace;

import java.nio.file.Path;
import org.junit.jupiter.api.Nested;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.testkit.FileToolsContract;
import org.vancetope.worktarget.testkit.FileToolsFixture;

/**
 * Runs the file-tools contract on the WORK backend (in the calling process's temp RootDir) on Jimfs
 * (unix, windows) and the real disk.
 */
class WorkspaceBackendContractTest {
    static final ToolContext CTX = new ToolContext("p1", "s1", "acme", "proj", "alice");

    static FileToolsFixture fixture(Path base) throws Exception {
        WorkspaceBackend b = WorkspaceBackend.builder().workspaceRoot(base).build();
        return FileToolsFixture.of(b.tools(), b.resolveRoot(CTX, null), CTX);
    }

    @Nested
    class JimfsUnix extends FileToolsContract {
        @Override
        protected Flavour flavour() {
            return Flavour.JIMFS_UNIX;
        }

        @Override
        protected FileToolsFixture createFixture(Path base) throws Exception {
            return fixture(base);
        }

        @Override
        protected boolean recreatesAMissingWorkDirectory() {
            return true;
        }
    }

    @Nested
    class JimfsWindows extends FileToolsContract {
        @Override
        protected Flavour flavour() {
            return Flavour.JIMFS_WINDOWS;
        }

        @Override
        protected FileToolsFixture createFixture(Path base) throws Exception {
            return fixture(base);
        }

        @Override
        protected boolean recreatesAMissingWorkDirectory() {
            return true;
        }
    }

    @Nested
    class RealDisk extends FileToolsContract {
        @Override
        protected Flavour flavour() {
            return Flavour.REAL_DISK;
        }

        @Override
        protected FileToolsFixture createFixture(Path base) throws Exception {
            return fixture(base);
        }

        @Override
        protected boolean recreatesAMissingWorkDirectory() {
            return true;
        }
    }
}
