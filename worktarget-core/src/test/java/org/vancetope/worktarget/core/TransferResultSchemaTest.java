package org.vancetope.worktarget.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.transfer.DirectoryEntry;
import org.vancetope.worktarget.core.transfer.DirectoryEntryResult;
import org.vancetope.worktarget.core.transfer.DirectoryTransferResult;
import org.vancetope.worktarget.core.transfer.FileTransferTools;
import org.vancetope.worktarget.core.transfer.TransferResult;
import org.vancetope.worktarget.spi.ErrorCode;

/** The transfer tools' result rendering validates against their output schema, ok or not. */
class TransferResultSchemaTest {

    @Test
    void aSuccessfulTransferMatchesTheUploadAndDownloadSchemas() {
        Map<String, Object> ok = new TransferResult("t1", true, 12, "ab12", null, null).toToolResult();
        assertThat(Draft202012.errors(FileTransferTools.UPLOAD_SPEC.outputSchema(), ok)).isEmpty();
        assertThat(Draft202012.errors(FileTransferTools.DOWNLOAD_SPEC.outputSchema(), ok)).isEmpty();
    }

    @Test
    void aFailedTransferWithItsCodeMatchesTheSchema() {
        Map<String, Object> failed = TransferResult.failed("t2", ErrorCode.HASH_MISMATCH, "hash differs").toToolResult();
        assertThat(failed).containsEntry("code", "hash_mismatch").containsEntry("hash", null);
        assertThat(Draft202012.errors(FileTransferTools.UPLOAD_SPEC.outputSchema(), failed)).isEmpty();
    }

    @Test
    void aTransferResultWithoutBytesWrittenFailsTheSchema() {
        Map<String, Object> broken = new LinkedHashMap<>(new TransferResult("t3", true, 1, "h", null, null).toToolResult());
        broken.remove("bytesWritten");
        assertThat(Draft202012.errors(FileTransferTools.UPLOAD_SPEC.outputSchema(), broken)).isNotEmpty();
    }

    @Test
    void aDirectoryTransferWithEveryEntryStatusMatchesBothDirectorySchemas() {
        DirectoryEntry file = new DirectoryEntry("a/b.txt", DirectoryEntry.Kind.FILE, 3, "sha256:" + "0".repeat(64));
        Map<String, Object> r = DirectoryTransferResult.of("d1", List.of(
                new DirectoryEntryResult("a", DirectoryEntry.Kind.DIRECTORY, DirectoryEntryResult.Status.CREATED, 0, null,
                        null, null),
                new DirectoryEntryResult("a/b.txt", DirectoryEntry.Kind.FILE, DirectoryEntryResult.Status.WRITTEN, 3,
                        file.hash(), null, null),
                new DirectoryEntryResult("l", DirectoryEntry.Kind.LINK, DirectoryEntryResult.Status.SKIPPED, 0, null,
                        "a link is not transferred", null),
                DirectoryEntryResult.failed(file, ErrorCode.EXISTS, "exists"))).toToolResult();
        assertThat(r).containsEntry("ok", false).containsEntry("filesWritten", 1).containsEntry("bytesWritten", 3L);
        assertThat(Draft202012.errors(FileTransferTools.DIR_UPLOAD_SPEC.outputSchema(), r)).isEmpty();
        assertThat(Draft202012.errors(FileTransferTools.DIR_DOWNLOAD_SPEC.outputSchema(), r)).isEmpty();
    }

    @Test
    void aDirectoryTransferThatFailedAsAWholeMatchesTheSchema() {
        Map<String, Object> r = DirectoryTransferResult.failed(null, ErrorCode.SIZE_LIMIT, "too many").toToolResult();
        assertThat(r).containsEntry("code", "size_limit").containsEntry("entries", List.of());
        assertThat(Draft202012.errors(FileTransferTools.DIR_UPLOAD_SPEC.outputSchema(), r)).isEmpty();
    }
}
