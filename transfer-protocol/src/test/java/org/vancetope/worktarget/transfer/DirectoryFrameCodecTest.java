package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.transfer.DirectoryEntry;
import org.vancetope.worktarget.core.transfer.DirectoryEntryResult;
import org.vancetope.worktarget.core.transfer.DirectoryManifest;
import org.vancetope.worktarget.core.transfer.DirectoryManifestResponse;
import org.vancetope.worktarget.core.transfer.DirectoryUploadRequest;
import org.vancetope.worktarget.core.transfer.TransferFrame;
import org.vancetope.worktarget.spi.ErrorCode;

/** The JSON form of the three directory-transfer frames: round trips, and clear refusals of broken ones. */
class DirectoryFrameCodecTest {
    private static final TransferCodec CODEC = TransferCodec.create();
    private static final String HASH = "sha256:" + "ab".repeat(32);

    private static TransferFrame roundTrip(TransferFrame f) throws FrameDecodeException {
        return CODEC.decode(CODEC.encode(f));
    }

    private static TransferFrame decode(String json) throws FrameDecodeException {
        return CODEC.decode(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aManifestWithEveryKindOfEntryRoundTrips() throws Exception {
        DirectoryManifest m = new DirectoryManifest("d1", "in/site", "uploads", true, List.of(
                new DirectoryEntry("src", DirectoryEntry.Kind.DIRECTORY, 0, null),
                new DirectoryEntry("src/a b é.c", DirectoryEntry.Kind.FILE, 12, HASH),
                new DirectoryEntry("empty", DirectoryEntry.Kind.FILE, 0, HASH),
                new DirectoryEntry("latest", DirectoryEntry.Kind.LINK, 0, null),
                new DirectoryEntry("fifo", DirectoryEntry.Kind.SPECIAL, 0, null)), null);
        assertThat(roundTrip(m)).isEqualTo(m);
    }

    @Test
    void aManifestWithTheSendersErrorRoundTrips() throws Exception {
        DirectoryManifest m = new DirectoryManifest("d1", "up", "uploads", false, List.of(), "Path 'x' does not exist.");
        assertThat(roundTrip(m)).isEqualTo(m);
    }

    @Test
    void aManifestResponseWithRefusalsRoundTrips() throws Exception {
        DirectoryEntry e = new DirectoryEntry("a.txt", DirectoryEntry.Kind.FILE, 1, HASH);
        DirectoryManifestResponse r = new DirectoryManifestResponse("d1", true, null,
                List.of(DirectoryEntryResult.failed(e, ErrorCode.EXISTS, "entry 'a.txt' exists on the receiver")));
        assertThat(roundTrip(r)).isEqualTo(r);
    }

    @Test
    void aDirectoryUploadRequestRoundTrips() throws Exception {
        DirectoryUploadRequest u = new DirectoryUploadRequest("d1", "project", "uploads", ".", true);
        assertThat(roundTrip(u)).isEqualTo(u);
    }

    @Test
    void overwriteDefaultsToFalse() throws Exception {
        assertThat(decode("{\"type\":\"client.dir.upload.request\",\"transferId\":\"d\",\"localPath\":\"a\","
                + "\"dirName\":\"u\",\"remotePath\":\"b\"}")).isEqualTo(new DirectoryUploadRequest("d", "a", "u", "b", false));
    }

    @Test
    void aManifestWithoutEntriesIsRefused() {
        assertThatThrownBy(() -> decode("{\"type\":\"transfer_dir_manifest\",\"transferId\":\"d\",\"target\":\"t\"}"))
                .isInstanceOfSatisfying(FrameDecodeException.class, e -> {
                    assertThat(e.reason()).isEqualTo(FrameDecodeException.Reason.MISSING_FIELD);
                    assertThat(e.getMessage()).contains("entries");
                });
    }

    @Test
    void anEntryOfAnUnknownTypeIsRefusedByName() {
        assertThatThrownBy(() -> decode("{\"type\":\"transfer_dir_manifest\",\"transferId\":\"d\",\"target\":\"t\","
                + "\"entries\":[{\"path\":\"x\",\"type\":\"socket\"}]}"))
                .isInstanceOfSatisfying(FrameDecodeException.class, e -> {
                    assertThat(e.reason()).isEqualTo(FrameDecodeException.Reason.BAD_FIELD);
                    assertThat(e.getMessage()).contains("entries[0].type");
                });
    }

    @Test
    void entriesThatAreNotAnArrayOfObjectsAreRefused() {
        assertThatThrownBy(() -> decode("{\"type\":\"transfer_dir_manifest\",\"transferId\":\"d\",\"target\":\"t\","
                + "\"entries\":[\"x\"]}")).isInstanceOf(FrameDecodeException.class).hasMessageContaining("entries[0]");
        assertThatThrownBy(() -> decode("{\"type\":\"transfer_dir_manifest\",\"transferId\":\"d\",\"target\":\"t\","
                + "\"entries\":{}}")).isInstanceOf(FrameDecodeException.class).hasMessageContaining("array");
    }

    @Test
    void aNegativeSizeIsRefused() {
        assertThatThrownBy(() -> decode("{\"type\":\"transfer_dir_manifest\",\"transferId\":\"d\",\"target\":\"t\","
                + "\"entries\":[{\"path\":\"x\",\"type\":\"file\",\"size\":-1,\"hash\":\"" + HASH + "\"}]}"))
                .isInstanceOf(FrameDecodeException.class).hasMessageContaining("entries[0].size");
    }
}
