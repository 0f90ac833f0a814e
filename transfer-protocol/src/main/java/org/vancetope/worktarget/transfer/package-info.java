/**
 * The wire form of the file-transfer frames: {@link org.vancetope.worktarget.transfer.TransferCodec}
 * turns {@code org.vancetope.worktarget.core.transfer.TransferFrame}s into UTF-8 JSON text frames and back,
 * chunk bytes as base64, every decoding failure a typed
 * {@link org.vancetope.worktarget.transfer.FrameDecodeException}. Binary and zstd chunk encodings
 * (negotiated capabilities) are not implemented yet.
 */
package org.vancetope.worktarget.transfer;
