package dev.cairn.protocol.record;

import dev.cairn.protocol.ErrorCode;

/**
 * The outcome of validating one partition's produce payload: either {@link ErrorCode#NONE} with what the
 * broker needs to append the batch, or the error code, message and (for a per-record failure) the record's
 * index that go into the partition's ProduceResponse entry ({@code error_message}, {@code record_errors}).
 *
 * @param errorCode NONE when the batch may be appended
 * @param errorMessage why it was refused, for the response's error_message; null when accepted
 * @param recordIndex the batch index of the first offending record, or -1 for a batch-level failure
 * @param batchStart where the batch starts in the validated buffer (its position); -1 when refused
 * @param batchSizeInBytes the batch's size; 0 when refused
 * @param recordsCount how many records the batch holds; 0 when refused
 * @param maxTimestampMs the largest record timestamp, from the records themselves (-1 if none has one)
 * @param offsetDeltaOfMaxTimestamp the offsetDelta of the first record with {@code maxTimestampMs}, or -1
 */
public record BatchValidationResult(ErrorCode errorCode, String errorMessage, int recordIndex, int batchStart,
                                    int batchSizeInBytes, int recordsCount, long maxTimestampMs,
                                    int offsetDeltaOfMaxTimestamp) {
    /** The record index reported for failures that concern the batch as a whole. */
    public static final int NO_RECORD_INDEX = -1;

    public boolean isValid() {
        return errorCode == ErrorCode.NONE;
    }

    static BatchValidationResult accepted(int batchStart, int batchSizeInBytes, int recordsCount,
                                          long maxTimestampMs, int offsetDeltaOfMaxTimestamp) {
        return new BatchValidationResult(ErrorCode.NONE, null, NO_RECORD_INDEX, batchStart, batchSizeInBytes,
                recordsCount, maxTimestampMs, offsetDeltaOfMaxTimestamp);
    }

    static BatchValidationResult rejected(ErrorCode errorCode, String errorMessage) {
        return rejected(errorCode, NO_RECORD_INDEX, errorMessage);
    }

    static BatchValidationResult rejected(ErrorCode errorCode, int recordIndex, String errorMessage) {
        return new BatchValidationResult(errorCode, errorMessage, recordIndex, -1, 0, 0,
                RecordBatchDescriptor.NO_TIMESTAMP, -1);
    }
}
