"""From "Understanding and Introspecting torch.autograd.backward": a network
Linear(3, 128) -> ReLU -> Linear(128, 10), MSE loss, SGD: one training step, by changing
only the import. Then a few more steps to show the loss going down.
"""

from diffcompare import autograd as ag
from diffcompare.autograd import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = ag.relu(self.fc1(x))
        return self.fc2(x)


ag.manual_seed(2)
net = Net()
criterion = nn.MSELoss()
optimizer = ag.optim.SGD(net.parameters(), lr=0.01)

input_tensor = ag.randn(1, 3)
target_tensor = ag.randn(1, 10)

output_tensor = net(input_tensor)
loss = criterion(output_tensor, target_tensor)
loss.backward()
optimizer.step()
print("first loss", round(loss.item(), 6))
print("gradient shapes", [tuple(p.grad.shape) for p in net.parameters()])
assert [tuple(p.grad.shape) for p in net.parameters()] == [(128, 3), (128,), (10, 128), (10,)]

first = loss.item()
for step in range(50):
    optimizer.zero_grad()
    loss = criterion(net(input_tensor), target_tensor)
    loss.backward()
    optimizer.step()
print("loss after 50 more steps", round(loss.item(), 6))
assert loss.item() < first

# Three ways, where they apply: MSELoss as a function of the network's 10 outputs o and
# the targets t. Its gradient in o is what backward() sends into the last Linear layer;
# retain_grad() keeps it on the output tensor to be compared.
import diffcompare  # noqa: E402

output_tensor = net(input_tensor)
output_tensor.retain_grad()
criterion(output_tensor, target_tensor).backward()
point = {"o": output_tensor.detach().numpy().ravel().tolist(), "t": target_tensor.numpy().ravel().tolist()}
report = diffcompare.compare("mean((o - t)**2)", at=point, repeat=1)
print("three-way comparison of the loss gradient:", report.verdicts())
assert report.exit_status == 0
into_last_layer = report.method("symbolic").estimate.values[0][:10]     # the o entries, by SymPy
assert abs(into_last_layer - output_tensor.grad.numpy().ravel()).max() < 1e-12
