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
 * @param rawSize {@link #RAW} when {@code bytes} are the file's data; otherwise {@code bytes} are zstd
 *                frames ({@link TransferCapability#ZSTD}) that decompress to exactly this many bytes of
 *                the file (the receiver refuses a chunk that declares more than its chunk size, or whose
 *                data decompress to another size)
 * @param offset the byte offset of this chunk's data in the file, or {@link #NO_OFFSET}; the first chunk
 *               after a {@link TransferResume} carries it ({@link TransferCapability#RESUME}), and a
 *               receiver refuses a chunk whose offset is not the number of bytes it holds
 */
public record TransferChunk(String transferId, long seq, byte[] bytes, boolean last, String hash, int rawSize,
                            long offset)
        implements TransferFrame {

    /** The {@link #offset()} of a chunk that does not name its offset. */
    public static final long NO_OFFSET = -1;

    /** The wire type. */
    public static final String TYPE = "transfer_chunk";

    /** {@link #rawSize()} of a chunk whose bytes are not compressed. */
    public static final int RAW = -1;

    /**
     * Validates the fields.
     *
     * @param transferId the correlation id
     * @param seq the chunk number, from 0, exactly one more per chunk
     * @param bytes the chunk data (not copied): the file's bytes, or zstd frames when {@code rawSize} is set
     * @param last whether this is the final chunk
     * @param hash {@code "sha256:<hex>"} of the whole file on the last chunk of a transfer announced without
     *        its hash ({@link TransferCapability#HASH_TRAILER}), else null
     * @param rawSize {@link #RAW}, or the decompressed size of zstd-compressed bytes
     * @param offset the byte offset of the chunk's data in the file, or {@link #NO_OFFSET}
     */
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
        if (rawSize < RAW) {
            throw new IllegalArgumentException("rawSize must be RAW (-1) or not negative");
        }
        if (offset < NO_OFFSET) {
            throw new IllegalArgumentException("offset must not be negative (NO_OFFSET for none)");
        }
    }

    /**
     * A chunk of uncompressed data that does not name its offset.
     *
     * @param transferId the correlation id
     * @param seq the chunk number
     * @param bytes the raw chunk data (not copied)
     * @param last whether this is the final chunk
     * @param hash the whole file's hash on the last chunk of a hash-trailer transfer, else null
     */
    public TransferChunk(String transferId, long seq, byte[] bytes, boolean last, String hash) {
        this(transferId, seq, bytes, last, hash, RAW, NO_OFFSET);
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
        this(transferId, seq, bytes, last, null, RAW, NO_OFFSET);
    }

    /**
     * This chunk with zstd-compressed bytes in place of its data.
     *
     * @param packed the zstd frames
     * @param decompressedSize the number of the file's bytes they decompress to
     * @return the compressed chunk, with the same id, seq, last, hash and offset
     */
    public TransferChunk compressedAs(byte[] packed, int decompressedSize) {
        return new TransferChunk(transferId, seq, packed, last, hash, decompressedSize, offset);
    }

    /**
     * This chunk naming its offset in the file.
     *
     * @param at the byte offset of its data in the file
     * @return the chunk with {@link #offset()} set
     */
    public TransferChunk at(long at) {
        return new TransferChunk(transferId, seq, bytes, last, hash, rawSize, at);
    }

    /**
     * Whether the bytes are zstd-compressed ({@link TransferCapability#ZSTD}).
     *
     * @return true when {@link #rawSize()} is not {@link #RAW}
     */
    public boolean compressed() {
        return rawSize != RAW;
    }

    /**
     * The number of the file's bytes this chunk carries: {@link #rawSize()} when compressed, else the
     * length of {@link #bytes()}.
     *
     * @return bytes of file data
     */
    public int dataLength() {
        return compressed() ? rawSize : bytes.length;
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
                && c.rawSize == rawSize && c.offset == offset
                && Arrays.equals(c.bytes, bytes) && java.util.Objects.equals(c.hash, hash);
    }

    @Override
    public int hashCode() {
        return ((transferId.hashCode() * 31 + Long.hashCode(seq)) * 31 + Arrays.hashCode(bytes) + (last ? 1 : 0)) * 31
                + java.util.Objects.hashCode(hash) + rawSize * 17 + Long.hashCode(offset);
    }

    @Override
    public String toString() {
        return "TransferChunk[transferId=" + transferId + ", seq=" + seq + ", bytes=" + bytes.length + " bytes, last="
                + last + (hash == null ? "" : ", hash=" + hash)
                + (compressed() ? ", zstd, rawSize=" + rawSize : "")
                + (offset == NO_OFFSET ? "" : ", offset=" + offset) + "]";
    }
}
