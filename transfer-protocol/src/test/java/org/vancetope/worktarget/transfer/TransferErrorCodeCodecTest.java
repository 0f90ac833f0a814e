package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.transfer.DirectoryManifest;
import org.vancetope.worktarget.core.transfer.DirectoryManifestResponse;
import org.vancetope.worktarget.core.transfer.TransferComplete;
import org.vancetope.worktarget.core.transfer.TransferFinish;
import org.vancetope.worktarget.core.transfer.TransferInitResponse;
import org.vancetope.worktarget.core.transfer.TransferResumeResponse;
import org.vancetope.worktarget.spi.ErrorCode;

/** The {@code code} of the frames that fail a transfer: written only on a failure, read as it is, never from the text. */
class TransferErrorCodeCodecTest {
    private final TransferCodec codec = TransferCodec.create();

    private String json(org.vancetope.worktarget.core.transfer.TransferFrame f) {
        return new String(codec.encode(f), StandardCharsets.UTF_8);
    }

    @Test
    void aRefusedInitCarriesItsCodeOnTheWireAndBack() throws Exception {
        TransferInitResponse r = new TransferInitResponse("t", false, "exceeds size limit (2 bytes > maxUploadSize 1 bytes)",
                ErrorCode.SIZE_LIMIT);
        assertThat(json(r)).isEqualTo("{\"type\":\"transfer_init_response\",\"transferId\":\"t\",\"ok\":false,"
                + "\"error\":\"exceeds size limit (2 bytes > maxUploadSize 1 bytes)\",\"code\":\"size_limit\"}");
        assertThat(codec.decode(codec.encode(r))).isEqualTo(r);
    }

    @Test
    void aFailedCompleteCarriesItsCodeAfterHashCheck() throws Exception {
        TransferComplete c = new TransferComplete("t", false, "zstd_refused: chunk 0 …", 0, null, ErrorCode.ZSTD_REFUSED);
        assertThat(json(c)).endsWith("\"hashCheck\":null,\"code\":\"zstd_refused\"}");
        assertThat(codec.decode(codec.encode(c))).isEqualTo(c);
    }

    @Test
    void aFinishWithTheClientsFailureCarriesItsCode() throws Exception {
        TransferFinish f = new TransferFinish("t", false, "File 'a' does not exist.", ErrorCode.NOT_FOUND);
        assertThat(json(f)).endsWith("\"error\":\"File 'a' does not exist.\",\"code\":\"not_found\"}");
        assertThat(codec.decode(codec.encode(f))).isEqualTo(f);
    }

    @Test
    void aRefusedResumeCarriesItsCodeAndAnAcceptedOneNone() throws Exception {
        TransferResumeResponse refused = new TransferResumeResponse("t", false, 0, 0, "nothing is kept of transfer t",
                ErrorCode.NOT_FOUND);
        assertThat(json(refused)).endsWith("\"error\":\"nothing is kept of transfer t\",\"code\":\"not_found\"}");
        assertThat(codec.decode(codec.encode(refused))).isEqualTo(refused);
        assertThat(json(new TransferResumeResponse("t", true, 5, 1, null, ErrorCode.INTERNAL)))
                .isEqualTo("{\"type\":\"transfer_resume_response\",\"transferId\":\"t\",\"ok\":true,\"offset\":5,"
                        + "\"nextSeq\":1,\"error\":null}");
        TransferResumeResponse old = (TransferResumeResponse) codec.decode("{\"type\":\"transfer_resume_response\","
                + "\"transferId\":\"t\",\"ok\":false,\"offset\":0,\"nextSeq\":0,\"error\":\"not_found: gone\"}");
        assertThat(old.code()).isNull();
        assertThat(old.failureCode()).as("the text is never read").isEqualTo(ErrorCode.INTERNAL);
    }

    @Test
    void successfulFramesAreWrittenWithoutACodeAsInTheFirstVersion() {
        assertThat(json(new TransferInitResponse("t", true, null, ErrorCode.INTERNAL)))
                .isEqualTo("{\"type\":\"transfer_init_response\",\"transferId\":\"t\",\"ok\":true,\"error\":null}");
        assertThat(json(new TransferComplete("t", true, null, 3, "ok", ErrorCode.INTERNAL)))
                .isEqualTo("{\"type\":\"transfer_complete\",\"transferId\":\"t\",\"ok\":true,\"error\":null,"
                        + "\"bytesWritten\":3,\"hashCheck\":\"ok\"}");
        assertThat(json(new TransferFinish("t", true, null, ErrorCode.INTERNAL)))
                .isEqualTo("{\"type\":\"transfer_finish\",\"transferId\":\"t\",\"ok\":true}");
    }

    @Test
    void aFailureFrameWithoutACodeDecodesWithoutOne() throws Exception {
        TransferComplete c = (TransferComplete) codec.decode("{\"type\":\"transfer_complete\",\"transferId\":\"t\","
                + "\"ok\":false,\"error\":\"disk_full: the disk is full\",\"bytesWritten\":0}");
        assertThat(c.code()).isNull();
        assertThat(c.failureCode()).as("the text is never read").isEqualTo(ErrorCode.INTERNAL);
    }

    @Test
    void aFailedCompleteWithoutACodeButAHashMismatchIsHashMismatch() throws Exception {
        TransferComplete c = (TransferComplete) codec.decode("{\"type\":\"transfer_complete\",\"transferId\":\"t\","
                + "\"ok\":false,\"error\":\"whatever\",\"bytesWritten\":5,\"hashCheck\":\"mismatch\"}");
        assertThat(c.failureCode()).isEqualTo(ErrorCode.HASH_MISMATCH);
    }

    @Test
    void anUnknownCodeDecodesAsInternalAndAKnownOneCaseInsensitively() throws Exception {
        assertThat(((TransferFinish) codec.decode("{\"type\":\"transfer_finish\",\"transferId\":\"t\",\"ok\":false,"
                + "\"error\":\"x\",\"code\":\"no_such_code\"}")).code()).isEqualTo(ErrorCode.INTERNAL);
        assertThat(((TransferFinish) codec.decode("{\"type\":\"transfer_finish\",\"transferId\":\"t\",\"ok\":false,"
                + "\"error\":\"x\",\"code\":\" Offline \"}")).code()).isEqualTo(ErrorCode.OFFLINE);
    }

    @Test
    void directoryFramesCarryTheCodeOfTheirFailureToo() throws Exception {
        DirectoryManifest m = new DirectoryManifest("d", "x", "u", false, List.of(), "Directory 'src' does not exist.",
                ErrorCode.NOT_FOUND);
        assertThat(codec.decode(codec.encode(m))).isEqualTo(m);
        DirectoryManifestResponse r = new DirectoryManifestResponse("d", false, "too many entries", List.of(),
                ErrorCode.SIZE_LIMIT);
        assertThat(codec.decode(codec.encode(r))).isEqualTo(r);
        assertThat(json(new DirectoryManifestResponse("d", true, null, List.of(), ErrorCode.SIZE_LIMIT)))
                .doesNotContain("\"code\"");
    }

    @Test
    void chunksSizedToAFrameLimitLeaveRoomForTheirOtherFields() {
        assertThat(TransferCodec.maxChunkBytes(65536, false)).isEqualTo(46080);
        assertThat(TransferCodec.maxChunkBytes(65536, true)).isEqualTo(61440);
        assertThat(TransferCodec.maxChunkBytes(2 * 1024 * 1024, false)).isGreaterThan(1024 * 1024);
    }
}
