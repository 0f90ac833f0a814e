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
import org.vancetope.worktarget.spi.ErrorCode;

/** The server's resolver names a RootDir; paths inside it are the gate's business. */
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
    void aKnownDirNameIsItsRootDir() {
        assertThat(brain.root(SCOPE, "uploads").root()).isEqualTo(uploads);
    }

    @Test
    void unknownDirNameIsRefused() {
        assertThat(brain.root(SCOPE, "nope").error()).startsWith(RootDirTargetResolver.DIR_NOT_FOUND + ": 'nope' is not")
                .contains("workspace_create_ephemeral_dir");
    }

    @Test
    void dirNameOfAnotherProjectIsNotFound() {
        assertThat(brain.root(new TransferScope("acme", "other"), "uploads").error())
                .startsWith(RootDirTargetResolver.DIR_NOT_FOUND);
    }

    @Test
    void withoutARoomCheckAFileToReceiveGetsItsRootDirWhateverItsSize() {
        assertThat(brain.rootToReceive(SCOPE, "uploads", Long.MAX_VALUE).root()).isEqualTo(uploads);
    }

    @Test
    void aFileTheProjectHasNoRoomForIsBudgetExceededWithTheRoomsMessage() {
        java.util.List<Long> taken = new java.util.ArrayList<>();
        RootDirTargetResolver budgeted = new RootDirTargetResolver((scope, dir) -> dir.equals("uploads")
                ? Optional.of(uploads) : Optional.empty(), (scope, bytes) -> {
                    if (bytes > 100) {
                        return "no room in " + scope.project();
                    }
                    taken.add(bytes);
                    return null;
                });

        TargetResolution refused = budgeted.rootToReceive(SCOPE, "uploads", 101);
        assertThat(refused.ok()).isFalse();
        assertThat(refused.code()).isEqualTo(ErrorCode.BUDGET_EXCEEDED);
        assertThat(refused.error()).isEqualTo("no room in proj");
        assertThat(budgeted.rootToReceive(SCOPE, "uploads", 100).root()).isEqualTo(uploads);
        assertThat(taken).containsExactly(100L);
        assertThat(budgeted.root(SCOPE, "uploads").root()).as("a file to send takes no room").isEqualTo(uploads);
        assertThat(taken).containsExactly(100L);
    }

    @Test
    void anUnknownRootDirIsNotFoundBeforeAnyRoomIsTaken() {
        RootDirTargetResolver budgeted = new RootDirTargetResolver((scope, dir) -> Optional.empty(), (scope, bytes) -> {
            throw new AssertionError("took room for a RootDir that does not exist");
        });

        assertThat(budgeted.rootToReceive(SCOPE, "nope", 1).code()).isEqualTo(ErrorCode.NOT_FOUND);
    }

    @Test
    void aTargetResolverOfItsOwnReceivesIntoItsRootByDefault() {
        TargetResolver at = TargetResolver.at(uploads);

        assertThat(at.rootToReceive(SCOPE, null, Long.MAX_VALUE).root()).isEqualTo(uploads.toAbsolutePath());
    }

    @Test
    void jailbreakDirNameWithDotDotIsNotFoundBeforeAnyLookup() {
        RootDirTargetResolver strict = new RootDirTargetResolver((scope, dir) -> {
            throw new AssertionError("looked up " + dir);
        });
        assertThat(strict.find(SCOPE, "../proj")).isEmpty();
        assertThat(strict.find(SCOPE, null)).isEmpty();
        assertThat(strict.root(SCOPE, "a/b").error()).startsWith(RootDirTargetResolver.DIR_NOT_FOUND);
    }
}
