package org.vancetope.worktarget.backend.local;

import java.nio.file.Path;
import org.junit.jupiter.api.Nested;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.testkit.FileToolsContract;
import org.vancetope.worktarget.testkit.FileToolsFixture;

/** Runs the file-tools contract on the CLIENT backend on Jimfs (unix, windows) and the real disk. */
class LocalBackendContractTest {
    static final ToolContext CTX = new ToolContext("p1", "s1", "acme", "proj", "alice");

    static FileToolsFixture fixture(Path base) {
        LocalBackend b = LocalBackend.builder().workDirectory(base).build();
        return FileToolsFixture.of(b.tools(), b.workDirectory(), CTX);
    }

    @Nested
    class JimfsUnix extends FileToolsContract {
        @Override
        protected Flavour flavour() {
            return Flavour.JIMFS_UNIX;
        }

        @Override
        protected FileToolsFixture createFixture(Path base) {
            return fixture(base);
        }
    }

    @Nested
    class JimfsWindows extends FileToolsContract {
        @Override
        protected Flavour flavour() {
            return Flavour.JIMFS_WINDOWS;
        }

        @Override
        protected FileToolsFixture createFixture(Path base) {
            return fixture(base);
        }
    }

    @Nested
    class RealDisk extends FileToolsContract {
        @Override
        protected Flavour flavour() {
            return Flavour.REAL_DISK;
        }

        @Override
        protected FileToolsFixture createFixture(Path base) {
            return fixture(base);
        }
    }
}
