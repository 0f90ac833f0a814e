package org.vancetope.worktarget.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.transfer.FileTransferTools;
import org.vancetope.worktarget.core.transfer.TransferResult;
import org.vancetope.worktarget.spi.ErrorCode;

/** The transfer tools' result rendering validates against their output schema, ok or not. */
class TransferResultSchemaTest {

    @Test
    void aSuccessfulTransferMatchesTheUploadAndDownloadSchemas() {
        Map<String, Object> ok = new TransferResult("t1", true, 12, "ab12", null).toToolResult();
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
        Map<String, Object> broken = new LinkedHashMap<>(new TransferResult("t3", true, 1, "h", null).toToolResult());
        broken.remove("bytesWritten");
        assertThat(Draft202012.errors(FileTransferTools.UPLOAD_SPEC.outputSchema(), broken)).isNotEmpty();
    }
}
