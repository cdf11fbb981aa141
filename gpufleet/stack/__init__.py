"""What the stack registers, composed from the layers below it (the controller's manifests with the
rules' and the mutator's admission policies): one owner the Pulumi components, ``gpufleet plan`` and
``gpufleet diff`` share. It sits just above ``gpufleet.rules`` and ``gpufleet.mutate``."""
