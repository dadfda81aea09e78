#!/usr/bin/python3
"""Checks an ONNX model written by `runner export` with tools that share no code with the runner.

    /usr/bin/python3 scripts/onnx_check.py MODEL.onnx PREDICTIONS.json [--opencv must|may]

1. onnx's checker (full check) and its shape inference (strict), which must give the outputs
   "logits" (and "probabilities" when present) the shape (batch, classes);
2. the metadata's class names: as many as the model has outputs;
3. the images that PREDICTIONS.json (`runner predict --json --top-k <classes>`) lists, decoded by
   OpenCV, run through the model by a NumPy interpreter of the ONNX operators
   (scripts/onnx_reference.py) and by OpenCV's dnn module: the top-1 class of each must equal the
   runner's and every probability must agree within 1e-4. The images must already have the
   model's input size (a resize would be OpenCV's, not the runner's). With `--opencv may`, a
   model OpenCV cannot load or run is reported ("opencv": "cannot run: ...") instead of failing.

Prints one JSON object with the findings; exit 0 when everything holds, 1 when something does not,
77 when onnx or OpenCV is not installed for this Python (Debian: python3-onnx, python3-opencv).
"""
import argparse
import json
import math
import sys

try:
    import numpy as np
    import onnx
    import onnx.shape_inference
    import cv2
    import onnx_reference
except ImportError as e:  # pragma: no cover - the test skips
    print(f"skipped: {e} (install python3-onnx and python3-opencv)")
    sys.exit(77)

TOLERANCE = 1e-4


def dims_of(value_info):
    return [d.dim_value if d.HasField("dim_value") else d.dim_param
            for d in value_info.type.tensor_type.shape.dim]


def check_onnx(path, findings):
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    metadata = {p.key: p.value for p in model.metadata_props}
    classes = json.loads(metadata["class_names"])
    outputs = {o.name: dims_of(o) for o in inferred.graph.output}
    if "logits" not in outputs:
        raise AssertionError(f"no output 'logits' (outputs: {list(outputs)})")
    batch = dims_of(model.graph.input[0])[0]  # "batch", or a fixed size
    for name, dims in outputs.items():
        if dims != [batch, len(classes)]:
            raise AssertionError(f"output {name} has shape {dims}, expected "
                                 f"[{batch}, {len(classes)}]")
    findings["checker"] = "ok"
    findings["run_id"] = metadata.get("run_id")
    findings["classes"] = len(classes)
    findings["outputs"] = list(outputs)
    findings["opset"] = model.opset_import[0].version
    findings["ops"] = sorted({node.op_type for node in model.graph.node})
    return model, classes, dims_of(model.graph.input[0])


def load_image(path, channels, height, width):
    image = cv2.imread(path, cv2.IMREAD_GRAYSCALE if channels == 1 else cv2.IMREAD_COLOR)
    if image is None:
        raise AssertionError(f"{path}: OpenCV cannot read it")
    if image.shape[:2] != (height, width):
        raise AssertionError(f"{path}: {image.shape[1]}x{image.shape[0]}, expected the model's "
                             f"input size {width}x{height}")
    if channels == 1:
        return image[np.newaxis].astype(np.float32)
    return cv2.cvtColor(image, cv2.COLOR_BGR2RGB).transpose(2, 0, 1).astype(np.float32)


def load_batch(predictions, input_dims):
    batch_size, channels, height, width = input_dims
    if isinstance(batch_size, int) and batch_size != len(predictions):
        raise AssertionError(f"the model's batch size is fixed at {batch_size}; the predictions "
                             f"list {len(predictions)} images")
    return np.stack([load_image(p["path"], channels, height, width) for p in predictions])


def softmax(logits):
    shifted = np.exp(logits.astype(np.float64) - logits.max())
    return shifted / shifted.sum()


def compare(logits, predictions, classes, what):
    """How far `what`'s logits are from the runner's predictions: (top-1 agreements, the largest
    probability difference, the largest difference of log-probabilities, which sees a small
    probability's error too); an AssertionError when they disagree."""
    if logits.shape != (len(predictions), len(classes)):
        raise AssertionError(f"{what}'s logits have shape {logits.shape}")
    worst, worst_log, agree = 0.0, 0.0, 0
    for row, prediction in zip(logits, predictions):
        probabilities = softmax(row)
        runner = {c["class"]: c["probability"] for c in prediction["predictions"]}
        if len(runner) != len(classes):
            raise AssertionError("the predictions must list every class (--top-k <classes>)")
        for index, name in enumerate(classes):
            worst = max(worst, abs(probabilities[index] - runner[name]))
            if probabilities[index] > 0 and runner[name] > 0:
                worst_log = max(worst_log, abs(math.log(probabilities[index]) - math.log(runner[name])))
        top = classes[int(np.argmax(probabilities))]
        agree += top == prediction["predictions"][0]["class"]
    if agree != len(predictions) or not worst <= TOLERANCE:
        raise AssertionError(f"{what} and the runner disagree: top-1 on {agree} of "
                             f"{len(predictions)} images, probabilities up to {worst:.3g} apart")
    return agree, worst, worst_log


def opencv_logits(path, batch):
    net = cv2.dnn.readNetFromONNX(path)
    net.setInput(batch, "pixels")
    return net.forward("logits")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("predictions")
    parser.add_argument("--opencv", choices=["must", "may"], default="must")
    args = parser.parse_args()
    findings = {"model": args.model, "opencv_version": cv2.__version__}
    try:
        model, classes, input_dims = check_onnx(args.model, findings)
        with open(args.predictions) as f:
            predictions = json.load(f)
        batch = load_batch(predictions, input_dims)
        findings["images"] = len(predictions)
        reference = onnx_reference.run(model, {"pixels": batch})["logits"]
        _, findings["reference_difference"], findings["reference_log_difference"] = compare(
            reference, predictions, classes, "the NumPy reference")
        try:
            logits = opencv_logits(args.model, batch)
        except cv2.error as e:
            if args.opencv == "must":
                raise
            findings["opencv"] = "cannot run: " + " ".join(str(e).split())[-300:]
        else:
            findings["opencv"] = "ran"
            (findings["top1_agree"], findings["max_probability_difference"],
             findings["max_log_probability_difference"]) = compare(logits, predictions, classes,
                                                                   "OpenCV")
    except (AssertionError, onnx.checker.ValidationError, onnx.shape_inference.InferenceError,
            cv2.error, KeyError, ValueError, NotImplementedError) as e:
        findings["error"] = f"{type(e).__name__}: {e}"
        print(json.dumps(findings))
        return 1
    print(json.dumps(findings))
    return 0


if __name__ == "__main__":
    sys.exit(main())
