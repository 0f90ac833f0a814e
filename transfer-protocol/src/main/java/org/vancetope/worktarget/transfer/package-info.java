/**
 * The wire form of the file-transfer frames: {@link org.vancetope.worktarget.transfer.TransferCodec}
 * turns {@code org.vancetope.worktarget.core.transfer.TransferFrame}s into UTF-8 JSON text frames and back,
 * chunk bytes as base64, every decoding failure a typed
 * {@link org.vancetope.worktarget.transfer.FrameDecodeException}. With the negotiated capabilities
 * {@code transfer.binary} and {@code transfer.zstd} a chunk travels as a binary frame and its payload
 * may be zstd-compressed; the codec carries the compressed bytes and their declared size, and the
 * receiver decompresses them.
 */
package org.vancetope.worktarget.transfer;
