package org.vancetope.worktarget.core.internal.path;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.testfixtures.ChildMain;

/**
 * The library deletes what it owns (a RootDir, a HOME) whole even when a job made parts of it read-only,
 * as a Go module cache is and {@code chmod -R a-w} does: {@code rm -rf} fails there, and the folder stayed
 * on disk. Permissions bind only a process without root's override, so the deletion runs in a child JVM
 * in a user namespace ({@code unshare --user}) where it is the files' owner and nothing more.
 */
@EnabledOnOs(OS.LINUX)
class ReadOnlyTreeDeletionTest {
    @TempDir
    Path tmp;

    /** The child: deletes {@code args[1]} inside the root {@code args[0]} and prints what happened. */
    public static void main(String[] args) {
        try {
            ConfinedRoot root = ConfinedRoot.of(Path.of(args[0]));
            System.out.println("deleted " + root.deleteTree(root.resolveEntry(args[1])));
        } catch (Exception e) {
            System.out.println("failed " + e);
        }
    }

    private static String runAsOwnerOnly(String... args) throws IOException, InterruptedException {
        return ChildMain.runAsOwnerOnly(ReadOnlyTreeDeletionTest.class, args);
    }

    private static void assumeUserNamespaces() {
        Assumptions.assumeTrue(ChildMain.ownerOnlyWorks(), "needs 'unshare --user' (util-linux, user namespaces) to "
                + "drop root's override of file permissions");
    }

    @Test
    void aTreeWhoseOwnerMadeItReadOnlyIsDeletedWhole() throws Exception {
        assumeUserNamespaces();
        Path root = Files.createDirectories(tmp.resolve("root"));
        Path tree = root.resolve("rootdir");
        Files.createDirectories(tree.resolve("pkg/mod/cache"));
        Files.writeString(tree.resolve("pkg/mod/cache/go.sum"), "x");
        Files.writeString(tree.resolve("pkg/mod/a.go"), "x");
        Files.writeString(tree.resolve("top.txt"), "x");
        Files.setPosixFilePermissions(tree.resolve("pkg/mod/cache"), PosixFilePermissions.fromString("r-xr-xr-x"));
        Files.setPosixFilePermissions(tree.resolve("pkg/mod"), PosixFilePermissions.fromString("r-x------"));
        Files.setPosixFilePermissions(tree, PosixFilePermissions.fromString("r-xr-x---"));

        assertThat(runAsOwnerOnly(root.toString(), "rootdir")).isEqualTo("deleted true");

        assertThat(tree).doesNotExist();
    }
}
