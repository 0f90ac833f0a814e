/**
 * File transfer between a server ("Brain") and a client ("Foot") over any {@code FrameChannel}:
 * the frame records, the {@link org.vancetope.worktarget.core.transfer.TransferEndpoint}
 * that runs the sender and receiver state machines, target resolution, and the
 * {@code client_file_upload} / {@code client_file_download} tools. The JSON codec lives in
 * {@code transfer-protocol}.
 */
package org.vancetope.worktarget.core.transfer;
