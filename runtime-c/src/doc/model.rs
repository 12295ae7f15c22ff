use crate::arenaplan_plan as plan;

/// One inference: the image into the planned input, the first byte of the output out.
pub fn infer(image: &[u8]) -> Result<i8, plan::Error> {
    // One `Model` exists at a time: `take` again once this one is dropped.
    let mut model = plan::Model::take().expect("no other Model of this plan");
    model.input(plan::input::IMAGE).copy_from_slice(image);
    model.run()?;
    Ok(model.output(plan::output::LOGITS)[0] as i8)
}
