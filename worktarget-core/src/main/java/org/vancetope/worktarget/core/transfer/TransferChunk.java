package org.vancetope.worktarget.core.transfer;

import java.util.Arrays;

/**
 * {@code transfer_chunk}, sender → receiver: raw bytes of the file in order.
 * On the wire the bytes are base64; here they are raw. The array is owned by the frame: neither the
 * sender nor the receiver modifies it after construction.
 *
 * <pre>{@code
 * new TransferChunk(id, 0, new byte[0], true);   // the single chunk of an empty file
 * }</pre>
 *
 * @param transferId the correlation id
 * @param seq the chunk number, from 0, exactly one more per chunk
 * @param bytes the raw chunk data (not copied)
 * @param last whether this is the final chunk
 * @param hash {@code "sha256:<hex>"} of the whole file on the last chunk of a transfer announced without
 *             its hash ({@link TransferCapability#HASH_TRAILER}), else null
 * @param offset the byte offset of this chunk in the file, or {@link #NO_OFFSET}; the first chunk after a
 *               {@link TransferResume} carries it ({@link TransferCapability#RESUME}), and a receiver refuses
 *               a chunk whose offset is not the number of bytes it holds
 */
public record TransferChunk(String transferId, long seq, byte[] bytes, boolean last, String hash, long offset)
        implements TransferFrame {

    /** The {@link #offset()} of a chunk that does not name its offset. */
    public static final long NO_OFFSET = -1;

    /** The wire type. */
    public static final String TYPE = "transfer_chunk";

    /** Validates the fields. */
    public TransferChunk {
        TransferFrame.requireId(transferId);
        if (seq < 0) {
            throw new IllegalArgumentException("seq must not be negative");
        }
        if (bytes == null) {
            throw new IllegalArgumentException("bytes must not be null (use an empty array)");
        }
        if (hash != null && !last) {
            throw new IllegalArgumentException("only the last chunk carries the hash");
        }
        if (offset < NO_OFFSET) {
            throw new IllegalArgumentException("offset must not be negative (NO_OFFSET for none)");
        }
    }

    /**
     * A chunk that does not name its offset.
     *
     * @param transferId the correlation id
     * @param seq the chunk number
     * @param bytes the raw chunk data (not copied)
     * @param last whether this is the final chunk
     * @param hash the whole file's hash on the last chunk (hash trailer), else null
     */
    public TransferChunk(String transferId, long seq, byte[] bytes, boolean last, String hash) {
        this(transferId, seq, bytes, last, hash, NO_OFFSET);
    }

    /**
     * A chunk without a hash, as every chunk of the base protocol is.
     *
     * @param transferId the correlation id
     * @param seq the chunk number
     * @param bytes the raw chunk data (not copied)
     * @param last whether this is the final chunk
     */
    public TransferChunk(String transferId, long seq, byte[] bytes, boolean last) {
        this(transferId, seq, bytes, last, null);
    }

    @Override
    public String type() {
        return TYPE;
    }

    /**
     * Compares by content, including the bytes.
     *
     * @param o the other object
     * @return true when equal
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof TransferChunk c && c.seq == seq && c.last == last && c.transferId.equals(transferId)
                && Arrays.equals(c.bytes, bytes) && java.util.Objects.equals(c.hash, hash) && c.offset == offset;
    }

    @Override
    public int hashCode() {
        return ((transferId.hashCode() * 31 + Long.hashCode(seq)) * 31 + Arrays.hashCode(bytes) + (last ? 1 : 0)) * 31
                + java.util.Objects.hashCode(hash) + Long.hashCode(offset);
    }

    @Override
    public String toString() {
        return "TransferChunk[transferId=" + transferId + ", seq=" + seq + ", bytes=" + bytes.length + " bytes, last="
                + last + (hash == null ? "" : ", hash=" + hash) + (offset == NO_OFFSET ? "" : ", offset=" + offset) + "]";
    }
}
