package org.vancetope.worktarget.core.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RootDirTargetResolverTest {
    private static final TransferScope SCOPE = new TransferScope("acme", "proj");
    private FileSystem fs;
    private Path uploads;
    private RootDirTargetResolver brain;

    @BeforeEach
    void setUp() throws Exception {
        fs = Jimfs.newFileSystem(Configuration.unix());
        uploads = Files.createDirectories(fs.getPath("/ws/acme/proj/uploads"));
        brain = new RootDirTargetResolver((scope, dir) -> scope.equals(SCOPE) && dir.equals("uploads")
                ? Optional.of(uploads) : Optional.empty());
    }

    @AfterEach
    void tearDown() throws Exception {
        fs.close();
    }

    @Test
    void unknownDirNameIsRefused() {
        assertThat(brain.resolve(SCOPE, "nope", "a.txt", TargetResolver.Access.WRITE).error())
                .isEqualTo(RootDirTargetResolver.DIR_NOT_FOUND);
    }

    @Test
    void dirNameOfAnotherProjectIsNotFound() {
        assertThat(brain.resolve(new TransferScope("acme", "other"), "uploads", "a.txt", TargetResolver.Access.WRITE)
                .error()).isEqualTo(RootDirTargetResolver.DIR_NOT_FOUND);
    }

    @Test
    void jailbreakDirNameWithDotDotIsNotFound() {
        assertThat(brain.root(SCOPE, "../proj")).isEmpty();
        assertThat(brain.root(SCOPE, null)).isEmpty();
    }

    @Test
    void pathIsConfinedToTheRootDir() {
        assertThat(brain.resolve(SCOPE, "uploads", "a/b.txt", TargetResolver.Access.WRITE).path())
                .isEqualTo(uploads.resolve("a/b.txt"));
        assertThat(brain.resolve(SCOPE, "uploads", "../x.txt", TargetResolver.Access.WRITE).error())
                .isEqualTo("path escapes RootDir 'uploads'");
    }
}
