package org.vancetope.worktarget.core.internal.exec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;

/** The confined root of a test directory. */
public final class TestRoots {
    private TestRoots() {
    }

    /**
     * The confined root of an existing directory.
     *
     * @param dir the directory
     * @return its confined root
     */
    public static ConfinedRoot root(Path dir) {
        try {
            return ConfinedRoot.of(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
